import { Finding, FindingInit } from '../model';
import { addCvss, arr, cvssSeverity, cwes, obj, severityOf, str, vulnIds } from '../normalize';
import { each, first, hasKeys, JsonFormat, ParseContext } from './common';

/** osv-scanner lists aliases of one vulnerability separately and clusters them in `groups`. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(obj(doc).results)) {
    const source = obj(obj(r).source);
    for (const p of each(obj(r).packages)) {
      const pkg = obj(obj(p).package);
      const vulns = arr(obj(p).vulnerabilities).map(obj);
      const groups = arr(obj(p).groups).map((g) => arr(obj(g).ids).map(String));
      const done = new Set<string>();
      for (const v of vulns) {
        const id = str(v.id) ?? 'unknown';
        if (done.has(id)) continue;
        const group = groups.find((g) => g.includes(id)) ?? [id];
        group.forEach((g) => done.add(g));
        const members = vulns.filter((x) => group.includes(String(x.id)));
        const affected = members.flatMap((m) => arr(m.affected)).map(obj);
        const dbSeverity = members.map((m) => str(obj(m.database_specific).severity)).find(Boolean);
        const init: FindingInit = {
          tool: 'osv-scanner',
          toolCategory: 'sca',
          ruleId: id,
          title: `${id} in ${str(pkg.name) ?? 'package'}${str(pkg.version) ? ` ${String(pkg.version)}` : ''}${str(v.summary) ? `: ${String(v.summary)}` : ''}`,
          description: str(v.details) ?? str(v.summary),
          severity: 'low',
          toolSeverity: dbSeverity,
          cwes: cwes(
            affected.flatMap((a) => arr(obj(a.database_specific).cwes).map((c) => obj(c).cweId)),
            members.map((m) => obj(m.database_specific).cwe_ids),
          ),
          vulnerabilityIds: vulnIds([...group, ...members.flatMap((m) => arr(m.aliases))]),
          references: members
            .flatMap((m) => arr(m.references))
            .map((x) => str(obj(x).url))
            .filter((u): u is string => !!u),
          library: {
            name: str(pkg.name) ?? 'unknown',
            version: str(pkg.version),
            ecosystem: str(pkg.ecosystem),
            purl: str(obj(affected[0]?.package).purl),
          },
          filePath: str(source.path),
        };
        for (const m of members) for (const s of arr(m.severity)) addCvss(init, obj(s).score);
        // Unscored records (e.g. malicious-package entries) stay low unless the database gives a word.
        init.severity = cvssSeverity(init) ?? severityOf(dbSeverity) ?? 'low';
        yield ctx.finding(init);
      }
    }
  }
}

export const osvScanner: JsonFormat = {
  id: 'osv-scanner',
  title: 'OSV-Scanner JSON (osv-scanner --format json)',
  testedWith: 'OSV-Scanner JSON, from corpus samples that carry no tool version',
  kind: 'json',
  acceptsEmpty: true,
  detect: (doc) =>
    hasKeys(doc, 'results') &&
    (hasKeys(doc, 'experimental_config') || hasKeys(obj(first(obj(doc).results)), 'source', 'packages')),
  parse,
};
