import { Finding, FindingInit } from '../model';
import { addCvss, arr, cwes, isObj, obj, severityOf, str, vulnIds } from '../normalize';
import { hasKeys, JsonFormat, ParseContext } from './common';
import { InputError } from '../errors';

/** npm 6 and older (and pnpm audit): `advisories`, one finding per advisory and affected version. */
export function* advisories(doc: Record<string, unknown>, ctx: ParseContext, tool = 'npm-audit'): Generator<Finding> {
  for (const adv of Object.values(obj(doc.advisories))) {
    const a = obj(adv);
    const sev = str(a.severity) ?? 'info';
    for (const f of arr(a.findings)) {
      const paths = arr(obj(f).paths).map(String);
      yield ctx.finding({
        tool,
        toolCategory: 'sca',
        ruleId: str(a.id),
        title: `${str(a.title) ?? 'Advisory'} in ${str(a.module_name) ?? 'package'}`,
        description:
          [str(a.overview), paths.length ? `Paths:\n${paths.join('\n')}` : undefined].filter(Boolean).join('\n\n') ||
          undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        cwes: cwes(a.cwe),
        vulnerabilityIds: vulnIds(arr(a.cves), str(a.url), str(a.github_advisory_id)),
        references: [str(a.url)].filter((u): u is string => !!u),
        mitigation: str(a.recommendation),
        library: { name: str(a.module_name) ?? 'unknown', version: str(obj(f).version), ecosystem: 'npm' },
        filePath: paths[0],
      });
    }
  }
}

/** npm 7+: `vulnerabilities` keyed by package; advisories are the objects in `via`. */
function* v2(doc: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  for (const [name, vuln] of Object.entries(obj(doc.vulnerabilities))) {
    const v = obj(vuln);
    const advisories = arr(v.via).filter(isObj);
    // Packages listed only because a dependency of theirs is vulnerable are reported at that dependency.
    if (advisories.length === 0) continue;
    const sev = str(v.severity) ?? 'info';
    const fix = obj(v.fixAvailable);
    const init: FindingInit = {
      tool: 'npm-audit',
      toolCategory: 'sca',
      ruleId: str(advisories[0].source),
      title: `${str(advisories[0].title) ?? 'Advisory'}${advisories.length > 1 ? ` (+${advisories.length - 1} more)` : ''} in ${name}`,
      description: advisories
        .map((a) => `${str(a.title) ?? ''} (${str(a.url) ?? ''}, ${str(a.range) ?? ''})`)
        .join('\n'),
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      cwes: cwes(advisories.map((a) => a.cwe)),
      vulnerabilityIds: vulnIds(
        [],
        advisories.map((a) => str(a.url)),
      ),
      references: advisories.map((a) => str(a.url)).filter((u): u is string => !!u),
      mitigation: str(fix.name) ? `Upgrade ${String(fix.name)} to ${str(fix.version) ?? 'a fixed version'}` : undefined,
      library: { name, ecosystem: 'npm', fixedVersion: str(fix.name) === name ? str(fix.version) : undefined },
      filePath: str(arr(v.nodes)[0]),
    };
    for (const a of advisories) addCvss(init, obj(a.cvss).vectorString, obj(a.cvss).score);
    yield ctx.finding(init);
  }
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  if (isObj(o.error)) {
    const e = obj(o.error);
    throw new InputError(`npm audit report contains errors: ${str(e.code) ?? ''} ${str(e.summary) ?? ''}`.trim());
  }
  yield* 'auditReportVersion' in o ? v2(o, ctx) : advisories(o, ctx);
}

export const npmAudit: JsonFormat = {
  id: 'npm-audit',
  title: 'npm audit --json (advisories and auditReportVersion layouts)',
  testedWith: 'npm 6 (advisories) and npm 7+ (auditReportVersion 2)',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'auditReportVersion', 'vulnerabilities') ||
    // pnpm audit writes `advisories` and `metadata` only; npm 6 adds `actions` and `muted`.
    hasKeys(doc, 'advisories', 'metadata', 'actions') ||
    (hasKeys(doc, 'error') &&
      Object.keys(obj(doc)).length === 1 &&
      /^E[A-Z]+$/.test(str(obj(obj(doc).error).code) ?? '')),
  parse,
};
