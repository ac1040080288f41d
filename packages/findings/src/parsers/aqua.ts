import { Finding, FindingInit } from '../model';
import { addCvss, arr, obj, str } from '../normalize';
import { each, first, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';
import { packageVulnerability } from './package-vulnerability';

interface Image {
  name?: string;
  registry?: string;
}

/**
 * A vulnerability's severity: Aqua's own rating first (what Aqua's console shows and its policies
 * use), else the vendor's, else NVD's (v3, then v2); `negligible` is info.
 */
function severityWord(v: Record<string, unknown>): string {
  return (
    str(v.aqua_severity) ??
    str(v.severity) ??
    str(v.vendor_severity_v3) ??
    str(v.vendor_severity) ??
    str(v.nvd_severity_v3) ??
    str(v.nvd_severity) ??
    'unknown'
  );
}

function vulnerability(
  v: Record<string, unknown>,
  pkg: Record<string, unknown>,
  image: Image,
  ctx: ParseContext,
): Finding {
  const id = str(v.name) ?? 'unknown';
  const name = str(pkg.name) ?? str(v.file) ?? 'unknown';
  const version = str(pkg.version);
  const fixed = str(v.fix_version);
  const pkgVuln = packageVulnerability({
    id,
    name,
    version,
    fixedVersion: fixed,
    ecosystem: str(pkg.format),
    severity: severityWord(v),
  });
  const init: FindingInit = {
    tool: 'aqua',
    toolCategory: 'container',
    ...pkgVuln,
    title: `${id} - ${name}${version ? ` (${version})` : ''}`,
    description: str(v.description),
    tags: [str(pkg.format)].filter((t): t is string => !!t),
    references: [str(v.nvd_url), str(v.vendor_url), str(v.url)].filter((u): u is string => !!u),
    mitigation: str(v.solution) ?? pkgVuln.mitigation,
    filePath: str(pkg.path),
    resource: imageResource(image),
    detectedAt: str(v.first_found_date),
  };
  addCvss(init, v.nvd_vectors_v3 ?? v.vendor_vectors_v3, v.nvd_score_v3);
  addCvss(init, v.nvd_vectors ?? v.vendor_vectors ?? v.aqua_vectors, v.aqua_score ?? v.score);
  return ctx.finding(init);
}

function imageResource(image: Image): { id: string; type: string; name: string } | undefined {
  if (!image.name) return undefined;
  const id = image.registry ? `${image.registry}/${image.name}` : image.name;
  return { id, type: 'container-image', name: image.name };
}

/** A file in the image holding secrets (Aqua's sensitive-data scan): one finding per file. */
function sensitive(r: Record<string, unknown>, image: Image, ctx: ParseContext): Finding {
  const name = str(r.name) ?? 'file';
  const path = str(r.path);
  const items = arr(r.sensitive_items).map(String);
  return ctx.finding({
    tool: 'aqua',
    toolCategory: 'secrets',
    ruleId: 'sensitive-data',
    title: `${name} - ${name}${path ? ` (${path})` : ''}`,
    description: items.length ? `Sensitive data: ${[...new Set(items)].join(', ')}` : undefined,
    severity: 'high',
    tags: ['secret'],
    filePath: path,
    resource: imageResource(image),
  });
}

/** `scannercli scan --jsonfile` and the scan-result API: `resources`, each with its vulnerabilities. */
function* scan(doc: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const image: Image = { name: str(doc.image) ?? str(doc.pull_name), registry: str(doc.registry) };
  for (const r of each(doc.resources)) {
    const entry = obj(r);
    const pkg = obj(entry.resource);
    for (const v of each(entry.vulnerabilities)) yield vulnerability(obj(v), pkg, image, ctx);
    if (arr(pkg.sensitive_items).length || arr(entry.sensitive_data_items).length) yield sensitive(pkg, image, ctx);
  }
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const d = obj(doc);
  if (hasKeys(doc, 'resources')) yield* scan(d, ctx);
  else if (hasKeys(doc, 'cves')) {
    // API v1 scan result: `cves` name the package in `file`.
    const image: Image = { name: str(d.image_name), registry: str(d.registry) };
    for (const v of each(d.cves)) yield vulnerability(obj(v), { name: obj(v).file }, image, ctx);
  } else if (hasKeys(doc, 'result')) {
    // API v2 vulnerabilities: one row per vulnerability in a package of an image.
    for (const v of each(d.result)) {
      const row = obj(v);
      yield vulnerability(row, obj(row.resource), { name: str(row.image_name), registry: str(row.registry) }, ctx);
    }
  } else for (const x of each(doc)) yield* scan(obj(obj(x).results), ctx);
}

const isScan = (d: unknown): boolean =>
  hasKeys(d, 'resources') &&
  (hasKeys(d, 'image') || hasKeys(d, 'digest')) &&
  ['vulnerability_summary', 'image_assurance_results', 'scan_started', 'scan_options'].some((k) => k in obj(d));
const isDevopsEntry = (x: unknown): boolean => hasKeys(x, 'image_name', 'results') && isScan(obj(x).results);
const isV2 = (d: unknown): boolean => {
  if (!hasKeys(d, 'count', 'page', 'pagesize', 'result')) return false;
  const row = first(obj(d).result);
  return row === undefined
    ? 'more_data_all_pages' in obj(d) || hasKeys(obj(d).query, 'image_name')
    : hasKeys(row, 'name', 'resource') && (hasKeys(row, 'aqua_severity') || hasKeys(row, 'image_name'));
};

/**
 * Aqua Security image scans (Aqua 5–2022.4): the scanner CLI's `--jsonfile` report, the same report
 * per image in an array (Aqua DevOps / pipeline export), the API v1 scan result (`cves`) and the API
 * v2 vulnerabilities list (`result`). One finding per vulnerability in one package of one image; a
 * file with sensitive data (keys, tokens) is one finding however many items Aqua found in it.
 * Severity: Aqua's rating, else the vendor's, else NVD's. `{}` and `[]` (what the exports write
 * when nothing was scanned) carry no marker of Aqua and are accepted only with the format declared.
 */
export const aqua: JsonFormat = {
  id: 'aqua',
  title: 'Aqua Security image scan (scannercli --jsonfile, DevOps export array, API scan result, API vulnerabilities)',
  testedWith: 'Aqua 4–2022.4: API v1 scan results and API v2 vulnerabilities',
  kind: 'json',
  detect: (doc) =>
    isScan(doc) ||
    isArrayLikeOf(doc, isDevopsEntry) ||
    (hasKeys(doc, 'cves', 'image_name') && (hasKeys(doc, 'cves_counts') || hasKeys(doc, 'registry'))) ||
    isV2(doc),
  isEmptyReport: (doc) =>
    (Array.isArray(doc) && doc.length === 0) || (hasKeys(doc) && Object.keys(obj(doc)).length === 0),
  parse,
};
