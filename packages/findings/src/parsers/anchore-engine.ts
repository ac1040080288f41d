import { Finding } from '../model';
import { addCvss, arr, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';
import { packageVulnerability } from './package-vulnerability';

/** Anchore Engine writes "None" for an absent fix, CPE or path. */
const value = (v: unknown): string | undefined => (str(v) === 'None' ? undefined : str(v));

/**
 * `anchore-cli --json image vuln IMAGE all|os|non-os` (Anchore Engine 0.x, Enterprise 2.x–4.x API).
 * One finding per vulnerability record: a record is one vulnerability in one package at one path, so
 * the same advisory in two jars of an image stays two findings (the path is in the fingerprint).
 * Severity is Anchore's word (Critical/High/Medium/Low/Negligible/Unknown; the last two are info).
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const image = str(obj(doc).imageDigest);
  for (const r of each(obj(doc).vulnerabilities)) {
    const v = obj(r);
    const id = str(v.vuln) ?? 'unknown';
    const name = str(v.package_name) ?? str(v.package) ?? 'unknown';
    const version = str(v.package_version);
    const fix = value(v.fix);
    const sev = str(v.severity) ?? 'Unknown';
    const init = ctx.finding({
      tool: 'anchore-engine',
      toolCategory: 'container',
      ...packageVulnerability({
        id,
        aliases: arr(v.nvd_data).map((n) => obj(n).id),
        name,
        version,
        fixedVersion: fix,
        ecosystem: str(v.package_type),
        severity: sev,
      }),
      title: `${id} in ${name}${version ? `:${version}` : ''}`,
      description: [str(v.feed_group) && `Feed: ${String(v.feed_group)}`, image && `Image: ${image}`]
        .filter(Boolean)
        .join('\n'),
      tags: [str(v.package_type)].filter((t): t is string => !!t),
      references: [str(v.url)].filter((u): u is string => !!u),
      filePath: value(v.package_path),
    });
    for (const d of [...arr(v.nvd_data), ...arr(v.vendor_data)]) {
      const score = (k: string): number | undefined => {
        const s = obj(obj(d)[k]).base_score;
        return typeof s === 'number' && s >= 0 ? s : undefined;
      };
      init.cvssScore ??= score('cvss_v3') ?? score('cvss_v2');
      addCvss(init, obj(obj(d).cvss_v3).vector_string);
    }
    yield init;
  }
}

export const anchoreEngine: JsonFormat = {
  id: 'anchore-engine',
  title: 'Anchore Engine image vulnerabilities (anchore-cli --json image vuln, Enterprise API)',
  testedWith: 'Anchore Engine 0.8–1.0 and the Anchore Enterprise API',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'imageDigest', 'vulnerabilities') || hasKeys(doc, 'vulnerability_type', 'vulnerabilities'),
  parse,
};
