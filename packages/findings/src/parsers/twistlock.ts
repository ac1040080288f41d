import { Finding, FindingInit } from '../model';
import { addCvss, arr, obj, severityOf, str, vulnIds } from '../normalize';
import { CsvFormat, each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * Twistlock / Prisma Cloud Compute severities: critical, high (`important` in older consoles),
 * medium (`moderate`), low; `unimportant` and anything else is info.
 */
const severity = (word: string): FindingInit['severity'] => severityOf(word) ?? 'info';

interface Image {
  /** The image's name (registry/repository:tag) where the report gives it, else its id. */
  id: string;
  description: string;
}

function imageOf(x: Record<string, unknown>): Image {
  const repoTag = obj(x.repoTag);
  const named = [str(repoTag.registry), str(repoTag.repo)].filter(Boolean).join('/');
  const name =
    str(x.name) ??
    (named ? `${named}${str(repoTag.tag) ? `:${String(repoTag.tag)}` : ''}` : undefined) ??
    str(x.hostname);
  const id = str(x.id) ?? str(x._id);
  return {
    id: name ?? id ?? 'image',
    description: [id && `Image ID: ${id}`, str(x.distro) && `Distribution: ${String(x.distro)}`]
      .filter(Boolean)
      .join('\n'),
  };
}

function vulnerability(v: Record<string, unknown>, image: Image, ctx: ParseContext): Finding {
  const id = str(v.cve) ?? str(v.id) ?? 'unknown';
  const name = str(v.packageName) ?? 'unknown';
  const version = str(v.packageVersion);
  const status = str(v.status);
  const sev = str(v.severity) ?? 'unknown';
  const init: FindingInit = {
    tool: 'twistlock',
    toolCategory: 'container',
    ruleId: id,
    title: `${id}: ${name}${version ? ` - ${version}` : ''}`,
    description: [str(v.description), image.description].filter(Boolean).join('\n\n') || undefined,
    severity: severity(sev),
    toolSeverity: sev,
    tags: Array.isArray(v.riskFactors) ? arr(v.riskFactors).map(String) : Object.keys(obj(v.riskFactors)),
    vulnerabilityIds: vulnIds([id]),
    references: [str(v.link)].filter((u): u is string => !!u),
    mitigation: status,
    library: { name, version, fixedVersion: status?.replace(/^fixed in /i, '').split(/,\s*/)[0] },
    filePath: str(v.packagePath),
    resource: { id: image.id, type: 'container-image' },
    detectedAt: str(v.discoveredDate) ?? str(v.discovered),
  };
  addCvss(init, v.vector, v.cvss);
  return ctx.finding(init);
}

function compliance(c: Record<string, unknown>, image: Image, ctx: ParseContext): Finding {
  const id = str(c.id) ?? 'compliance';
  const sev = str(c.severity) ?? 'unknown';
  return ctx.finding({
    tool: 'twistlock',
    toolCategory: 'container',
    ruleId: id,
    title: `Compliance: ${str(c.title) ?? id}`,
    description:
      [
        `Compliance ID: ${id}`,
        str(c.category) && `Category: ${String(c.category)}`,
        str(c.description),
        str(c.cause) && `Cause: ${String(c.cause)}`,
        str(c.layerTime) && `Layer Time: ${String(c.layerTime)}`,
        image.description,
      ]
        .filter(Boolean)
        .join('\n\n') || undefined,
    severity: severity(sev),
    toolSeverity: sev,
    tags: ['compliance', str(c.category)?.toLowerCase()].filter((t): t is string => !!t),
    resource: { id: image.id, type: 'container-image' },
  });
}

/**
 * `twistcli images scan --output-file` (`{results: [image]}`) and the Prisma Cloud Compute API's
 * image, host and CI scan lists (an array of images with `vulnerabilities` and `complianceIssues`;
 * Twistlock 19–22, Prisma Cloud Compute 22–34). One finding per vulnerability in one package of one
 * image (its package path in the fingerprint, so two copies of a jar stay two findings) and one per
 * failed compliance check of an image. The image is named by registry/repository:tag where the
 * report gives it, so a rebuilt image keeps its findings' fingerprints.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(hasKeys(doc, 'results') ? obj(doc).results : doc)) {
    const x = obj(r);
    const image = imageOf(x);
    for (const v of each(x.vulnerabilities)) yield vulnerability(obj(v), image, ctx);
    for (const c of each(x.compliances ?? x.complianceIssues)) yield compliance(obj(c), image, ctx);
  }
}

const isImage = (x: unknown): boolean =>
  (hasKeys(x, 'vulnerabilityDistribution') || hasKeys(x, 'complianceDistribution')) && hasKeys(x, 'id');

export const twistlock: JsonFormat = {
  id: 'twistlock',
  title: 'Twistlock / Prisma Cloud Compute JSON (twistcli images scan --output-file; API image scans)',
  testedWith: 'Twistlock 19–22, Prisma Cloud Compute 22–34',
  kind: 'json',
  detect: (doc) => (hasKeys(doc, 'results') && isArrayLikeOf(obj(doc).results, isImage)) || isArrayLikeOf(doc, isImage),
  parse,
};

/** The image columns of the CSV export, with the labels the JSON reports' image description uses. */
const CSV_IMAGE_FIELDS: [string, string][] = [
  ['Registry', 'Registry'],
  ['Repository', 'Repository'],
  ['Tag', 'Tag'],
  ['Image ID', 'Id'],
  ['Distribution', 'Distro'],
  ['Hosts', 'Hosts'],
  ['Containers', 'Containers'],
  ['Clusters', 'Clusters'],
  ['Published', 'Published'],
  ['Discovered', 'Discovered'],
];

/** The Prisma Cloud console's vulnerability CSV export (Monitor > Vulnerabilities > Images / Hosts). */
function* parseCsv(rows: Iterable<Record<string, string>>, ctx: ParseContext): Generator<Finding> {
  for (const row of rows) {
    const col = (name: string): string | undefined => str(row[name]);
    const repository = [col('Registry'), col('Repository')].filter(Boolean).join('/');
    const image: Image = {
      id: repository ? `${repository}${col('Tag') ? `:${col('Tag')}` : ''}` : (col('Hostname') ?? col('Id') ?? 'image'),
      description: CSV_IMAGE_FIELDS.map(([label, column]) => col(column) && `${label}: ${col(column)}`)
        .filter(Boolean)
        .join('\n'),
    };
    const cve = col('CVE ID');
    if (cve) {
      yield vulnerability(
        {
          cve,
          severity: col('Severity'),
          packageName: col('Packages') ?? col('Source Package'),
          packageVersion: col('Package Version'),
          status: col('Fix Status'),
          cvss: col('CVSS'),
          description: col('Description'),
          riskFactors: (col('Risk Factors') ?? '').split(/,\s*/).filter(Boolean),
          packagePath: col('Binaries'),
          discovered: col('Discovered'),
        },
        image,
        ctx,
      );
    } else if (col('Compliance ID')) {
      yield compliance(
        {
          id: col('Compliance ID'),
          severity: col('Severity'),
          title: col('Description'),
          cause: col('Cause'),
          category: col('Type'),
        },
        image,
        ctx,
      );
    }
  }
}

export const twistlockCsv: CsvFormat = {
  id: 'twistlock-csv',
  title: 'Prisma Cloud Compute (Twistlock) vulnerability CSV export (console Monitor > Vulnerabilities)',
  testedWith: 'Prisma Cloud Compute 22–34',
  kind: 'csv',
  detect: (header) => ['CVE ID', 'Compliance ID', 'Packages', 'Fix Status'].every((h) => header.includes(h)),
  parse: parseCsv,
};
