import { Finding } from '../model';
import { arr, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** Retire.js 2+ writes {version, data: [...]}; older versions a bare array of file entries. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const files = isArrayLikeOf(doc, () => true) ? doc : obj(doc).data;
  for (const f of each(files)) {
    const file = str(obj(f).file);
    for (const r of arr(obj(f).results)) {
      const res = obj(r);
      const component = str(res.component) ?? 'unknown';
      const version = str(res.version);
      for (const x of arr(res.vulnerabilities)) {
        const v = obj(x);
        const ids = obj(v.identifiers);
        const summary =
          str(ids.summary) ??
          [...arr(ids.CVE), str(ids.githubID), str(ids.issue), str(ids.bug)].filter(Boolean).join(' ');
        const info = arr(v.info).map(String);
        const sev = str(v.severity) ?? 'medium';
        yield ctx.finding({
          tool: 'retire.js',
          toolCategory: 'sca',
          ruleId: summary,
          // Retire.js advisories have no id of their own: the summary and first link identify one,
          // even where it lists two CVEs fixed by the same change.
          locator: `${summary} ${info[0] ?? ''}`.trim(),
          title: `${summary} (${component}, ${version ?? '?'})`,
          description: `${component} ${version ?? ''} is vulnerable${str(v.below) ? ` below ${String(v.below)}` : ''}${str(v.atOrAbove) ? ` at or above ${String(v.atOrAbove)}` : ''}.`,
          severity: severityOf(sev) ?? 'medium',
          toolSeverity: sev,
          vulnerabilityIds: vulnIds([...arr(ids.CVE), str(ids.githubID)].filter(Boolean)),
          references: info,
          mitigation: str(v.below) ? `Upgrade ${component} to ${String(v.below)} or later` : undefined,
          library: { name: component, version, fixedVersion: str(v.below), ecosystem: 'javascript' },
          filePath: file,
        });
      }
    }
  }
}

const isFileEntry = (f: unknown): boolean => hasKeys(f, 'file', 'results') || hasKeys(f, 'component', 'results');

export const retirejs: JsonFormat = {
  id: 'retirejs',
  title: 'Retire.js JSON (retire --outputformat json)',
  testedWith: 'Retire.js JSON, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) =>
    (hasKeys(doc, 'version', 'data') && (hasKeys(doc, 'start') || hasKeys(doc, 'time'))) ||
    isArrayLikeOf(doc, isFileEntry),
  parse,
};
