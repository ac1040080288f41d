import { Finding } from '../model';
import { arr, obj, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * pip-audit -f json: before 2.0 a list of dependencies, since then `{dependencies, fixes}`. One
 * finding per vulnerability of a dependency; skipped dependencies (`skip_reason`) are not findings.
 * pip-audit writes no severity: every finding is medium, as the advisory databases it reads (PyPI,
 * OSV) give none in its output. CWE-1395 (dependency on a vulnerable component) is what each is.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const deps = Array.isArray(doc) || !hasKeys(doc, 'dependencies') ? doc : obj(doc).dependencies;
  for (const d of each(deps)) {
    const dep = obj(d);
    const name = str(dep.name) ?? 'unknown';
    const version = str(dep.version);
    for (const v of arr(dep.vulns)) {
      const vuln = obj(v);
      const id = str(vuln.id) ?? 'unknown';
      const fixes = arr(vuln.fix_versions).map(String);
      yield ctx.finding({
        tool: 'pip-audit',
        toolCategory: 'sca',
        ruleId: id,
        title: `${id} in ${name}${version ? `:${version}` : ''}`,
        description: str(vuln.description),
        severity: 'medium',
        cwes: [1395],
        vulnerabilityIds: vulnIds([id, ...arr(vuln.aliases)]),
        mitigation: fixes.length ? `Upgrade to version: ${fixes.join(', ')}` : undefined,
        library: { name, version, fixedVersion: fixes[0], ecosystem: 'pypi' },
      });
    }
  }
}

const isDependency = (d: unknown): boolean => hasKeys(d, 'name', 'vulns') || hasKeys(d, 'name', 'skip_reason');

export const pipAudit: JsonFormat = {
  id: 'pip-audit',
  title: 'pip-audit -f json (list and {dependencies, fixes} layouts)',
  testedWith: 'pip-audit 1.x (list layout) and 2.x ({dependencies, fixes})',
  kind: 'json',
  acceptsEmpty: true,
  isEmptyReport: (doc) => Array.isArray(doc) && doc.length === 0,
  detect: (doc) =>
    isArrayLikeOf(doc, isDependency) ||
    (hasKeys(doc, 'dependencies') &&
      Object.keys(obj(doc)).every((k) => k === 'dependencies' || k === 'fixes') &&
      isArrayLikeOf(obj(doc).dependencies, isDependency, true)),
  parse,
};
