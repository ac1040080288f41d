import { Finding, FindingInit } from '../model';
import { addCvss, arr, cvssSeverity, obj, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * cargo audit --json: one finding per entry of `vulnerabilities.list` (an advisory on one locked
 * crate version). Informational advisories (`warnings`: unmaintained, unsound, yanked) are not
 * findings: cargo audit reports them as warnings and passes unless run with `--deny warnings`.
 * RustSec advisories carry no severity word: the CVSS vector's score decides, else high (an advisory
 * in the RustSec database is a vulnerability cargo audit fails the build on).
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const entry of each(obj(obj(doc).vulnerabilities).list)) {
    const e = obj(entry);
    const a = obj(e.advisory);
    const pkg = obj(e.package);
    const id = str(a.id) ?? 'unknown';
    const name = str(pkg.name) ?? str(a.package) ?? 'unknown';
    const version = str(pkg.version);
    const patched = arr(obj(e.versions).patched).map(String);
    const init: FindingInit = {
      tool: 'cargo-audit',
      toolCategory: 'sca',
      ruleId: id,
      title: `[${name}${version ? ` ${version}` : ''}] ${str(a.title) ?? id}`,
      description: str(a.description),
      severity: 'high',
      tags: [...arr(a.keywords), ...arr(a.categories)].map(String),
      vulnerabilityIds: vulnIds([id, ...arr(a.aliases), ...arr(a.related)]),
      references: [str(a.url), ...arr(a.references).map(str)].filter((u): u is string => !!u),
      mitigation: patched.length ? `Upgrade to a version matching ${patched.join(' or ')}` : undefined,
      library: { name, version, ecosystem: 'crates.io' },
      filePath: 'Cargo.lock',
    };
    addCvss(init, a.cvss);
    init.severity = cvssSeverity(init) ?? init.severity;
    yield ctx.finding(init);
  }
}

export const cargoAudit: JsonFormat = {
  id: 'cargo-audit',
  title: 'cargo audit --json (RustSec)',
  testedWith: 'cargo-audit reports of 2021',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'database', 'lockfile', 'vulnerabilities') && hasKeys(obj(doc).vulnerabilities, 'list'),
  parse,
};
