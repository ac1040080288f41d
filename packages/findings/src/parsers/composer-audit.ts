import { Finding } from '../model';
import { arr, obj, severityOf, str, vulnIds } from '../normalize';
import { hasKeys, JsonFormat, ParseContext } from './common';

/**
 * composer audit --format=json; tested with Composer 2.4+: `advisories` maps a package to its advisories (an empty list when
 * there are none, as PHP encodes an empty map). One finding per advisory and package. The report
 * names no installed version, only the affected range. Abandoned packages are not vulnerabilities
 * and are left out.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const [pkg, list] of Object.entries(obj(obj(doc).advisories))) {
    // A list per package; PHP writes a list with gaps in its keys as an object.
    for (const a of Array.isArray(list) ? list : Object.values(obj(list))) {
      const adv = obj(a);
      const id = str(adv.advisoryId) ?? str(adv.cve) ?? 'unknown';
      const name = str(adv.packageName) ?? pkg;
      const sev = str(adv.severity);
      const sources = arr(adv.sources).map((s) => str(obj(s).remoteId));
      const range = str(adv.affectedVersions);
      yield ctx.finding({
        tool: 'composer-audit',
        toolCategory: 'sca',
        ruleId: id,
        title: `${name}: ${str(adv.title) ?? id}`,
        description:
          [
            str(adv.title),
            range && `**Affected versions:** ${range}`,
            str(adv.reportedAt) && `**Reported:** ${String(adv.reportedAt).slice(0, 10)}`,
          ]
            .filter(Boolean)
            .join('\n') || undefined,
        severity: severityOf(sev) ?? 'medium',
        toolSeverity: sev,
        vulnerabilityIds: vulnIds([str(adv.cve), ...sources], str(adv.link)),
        references: [str(adv.link)].filter((u): u is string => !!u),
        mitigation: range ? `Upgrade ${name} to a version outside the affected range (${range})` : undefined,
        library: { name, ecosystem: 'packagist' },
        locator: id,
        filePath: 'composer.lock',
      });
    }
  }
}

export const composerAudit: JsonFormat = {
  id: 'composer-audit',
  title: 'composer audit --format=json',
  testedWith: 'Composer 2.4+ (the audit command)',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'advisories', 'abandoned'),
  parse,
};
