import { InputError } from '../errors';
import { Finding } from '../model';
import { addCvss, arr, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * yarn audit --json. Yarn 1 writes JSON lines of `{type, data}`: an `auditAdvisory` line per
 * advisory and resolution path (the same advisory once per path), then an `auditSummary`; an `error`
 * line means the audit did not run. Yarn 4 (`yarn npm audit --json`) writes a line
 * `{value, children}` per vulnerable package. (Yarn 2 and 3 write the registry's npm 6 document,
 * which is read as npm-audit.)
 *
 * One finding per advisory and installed version: the lines of one advisory's further paths merge,
 * as `yarn audit` counts them; the paths are in the description.
 */
function* v1(lines: unknown, ctx: ParseContext): Generator<Finding> {
  for (const l of each(lines)) {
    const line = obj(l);
    if (line.type === 'error')
      throw new InputError(`yarn audit report contains errors: ${str(line.data) ?? ''}`.trim());
    if (line.type !== 'auditAdvisory') continue;
    const a = obj(obj(line.data).advisory);
    const id = str(a.id) ?? 'unknown';
    const name = str(a.module_name) ?? 'unknown';
    const sev = str(a.severity);
    for (const f of arr(a.findings)) {
      const version = str(obj(f).version);
      const paths = arr(obj(f).paths).map(String);
      const init = {
        tool: 'yarn-audit',
        toolCategory: 'sca' as const,
        ruleId: id,
        title: `${str(a.title) ?? 'Advisory'} in ${name}${version ? ` ${version}` : ''}`,
        description:
          [
            str(a.overview),
            str(a.vulnerable_versions) && `Vulnerable versions: ${String(a.vulnerable_versions)}`,
            paths.length ? `Paths:\n${paths.join('\n')}` : undefined,
          ]
            .filter(Boolean)
            .join('\n\n') || undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        cwes: cwes(a.cwe),
        vulnerabilityIds: vulnIds([...arr(a.cves), str(a.github_advisory_id)], str(a.url)),
        references: [str(a.url), ...(str(a.references) ?? '').split(/\s+/).filter((u) => /^https?:/.test(u))].filter(
          (u): u is string => !!u,
        ),
        mitigation: str(a.recommendation),
        library: { name, version, ecosystem: 'npm' },
        locator: id,
      };
      addCvss(init, obj(a.cvss).vectorString, obj(a.cvss).score);
      yield ctx.finding(init);
    }
  }
}

function* berry(lines: unknown, ctx: ParseContext): Generator<Finding> {
  for (const l of each(lines)) {
    const line = obj(l);
    const c = obj(line.children);
    const name = str(line.value) ?? 'unknown';
    const id = str(c.ID) ?? 'unknown';
    const sev = str(c.Severity);
    const versions = arr(c['Tree Versions']).map(String);
    for (const version of versions.length ? versions : [undefined]) {
      yield ctx.finding({
        tool: 'yarn-audit',
        toolCategory: 'sca',
        ruleId: id,
        title: `${str(c.Issue) ?? id} in ${name}${version ? ` ${version}` : ''}`,
        description:
          [
            str(c.Issue),
            str(c['Vulnerable Versions']) && `Vulnerable versions: ${String(c['Vulnerable Versions'])}`,
            arr(c.Dependents).length ? `Dependents:\n${arr(c.Dependents).map(String).join('\n')}` : undefined,
          ]
            .filter(Boolean)
            .join('\n\n') || undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        vulnerabilityIds: vulnIds([], str(c.URL)),
        references: [str(c.URL)].filter((u): u is string => !!u),
        library: { name, version, ecosystem: 'npm' },
        locator: id,
      });
    }
  }
}

const V1_TYPES = new Set(['auditAdvisory', 'auditSummary', 'auditAction', 'info', 'warning', 'error']);
const isV1 = (l: unknown): boolean => hasKeys(l, 'type', 'data') && V1_TYPES.has(String(obj(l).type));
const isBerry = (l: unknown): boolean => hasKeys(l, 'value', 'children') && hasKeys(obj(l).children, 'ID', 'Severity');
/** A yarn 1 stream is told from other `{type, data}` logs by an audit or error line: the first lines may be warnings. */
function isV1Stream(doc: unknown): boolean {
  if (isV1(doc)) return String(obj(doc).type).startsWith('audit');
  if (!isArrayLikeOf(doc, isV1)) return false;
  for (const l of each(doc)) {
    if (!isV1(l)) return false;
    if (String(obj(l).type).startsWith('audit') || obj(l).type === 'error') return true;
  }
  return false;
}

export const yarnAudit: JsonFormat = {
  id: 'yarn-audit',
  title: 'yarn audit --json (JSON lines; yarn npm audit --json)',
  testedWith: 'yarn 1 and yarn 4',
  kind: 'json',
  detect: (doc) => isV1Stream(doc) || isBerry(doc) || isArrayLikeOf(doc, isBerry),
  parse: (doc, ctx) => {
    const lines = isV1(doc) || isBerry(doc) ? [doc] : doc;
    return isArrayLikeOf(lines, isBerry) ? berry(lines, ctx) : v1(lines, ctx);
  },
};
