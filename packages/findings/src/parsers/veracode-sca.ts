import { Finding, FindingInit } from '../model';
import { addCvss, cwes, isObj, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, CsvFormat, JsonFormat, ParseContext } from './common';

/**
 * Veracode Software Composition Analysis (SourceClear): the issues API JSON
 * (`/srcclr/v3/workspaces/{id}/issues`, `_embedded.issues`) and the issues CSV export of the web UI.
 * One finding per vulnerability issue (a vulnerability on one library version of a project); licence
 * and outdated-library issues are not vulnerabilities and are left out. Severity is the CVSS score on
 * the CVSS scale (the CSV also states Veracode's word). The library is named by its coordinates
 * (Maven artifact id, npm package name); issues ignored in Veracode are suppressed.
 */
function cve(v: unknown): string | undefined {
  const s = str(v);
  return s ? (/^CVE-/i.test(s) ? s : `CVE-${s}`) : undefined;
}

/** `maven:group:artifact:version:classifier`, `npm::name:version:`: the name is the part before the version. */
function coordinateName(libraryId: string | undefined, version: string | undefined): string | undefined {
  if (!libraryId) return undefined;
  const parts = libraryId.split(':');
  const at = version ? parts.lastIndexOf(version) : -1;
  return at > 1 ? parts[at - 1] || undefined : undefined;
}

function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const x of each(obj(obj(doc)._embedded).issues)) {
    const issue = obj(x);
    if ((str(issue.issue_type) ?? 'vulnerability') !== 'vulnerability') continue;
    const lib = obj(issue.library);
    const v = obj(issue.vulnerability);
    const version = str(lib.version);
    const name = coordinateName(str(lib.id), version) ?? str(lib.name) ?? 'unknown';
    const score = issue.severity;
    const init: FindingInit = {
      tool: 'veracode-sca',
      toolCategory: 'sca',
      ruleId: str(v.id),
      title: `${str(v.title) ?? 'Vulnerability'} in ${name}${version ? ` ${version}` : ''}`,
      description: [str(lib.name), str(v.overview)].filter(Boolean).join('\n\n') || undefined,
      severity: severityOf(score) ?? 'medium',
      toolSeverity: str(score),
      cwes: cwes(v.cwe_id),
      vulnerabilityIds: vulnIds([cve(v.cve), str(v.ghsa)]),
      references: [str(obj(obj(issue._links).html).href)].filter((u): u is string => !!u),
      mitigation: str(lib.latest_version) ? `Latest version: ${String(lib.latest_version)}` : undefined,
      library: { name, version, ecosystem: str(lib.id)?.split(':')[0] },
      locator: str(issue.id),
      detectedAt: str(issue.created_date),
      suppression: issue.ignored === true ? { state: 'ignored', source: 'tool' } : undefined,
    };
    addCvss(
      init,
      str(v.cvss3_vector) && `CVSS:3.1/${String(v.cvss3_vector).replace(/^CVSS:3\.\d\//, '')}`,
      v.cvss3_score,
    );
    addCvss(init, str(v.cvss2_vector) && `CVSS:2.0/${String(v.cvss2_vector).replace(/^\(|\)$/g, '')}`, v.cvss2_score);
    yield ctx.finding(init);
  }
}

function* parseCsv(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  for (const r of rows) {
    if ((r['Issue type'] || 'Vulnerability') !== 'Vulnerability') continue;
    const version = str(r['Version in use']);
    const name = str(r['Coordinate 2']) ?? str(r.Library) ?? 'unknown';
    const sev = str(r.Severity);
    yield ctx.finding({
      tool: 'veracode-sca',
      toolCategory: 'sca',
      ruleId: str(r['Vulnerability ID']),
      title: `${str(r.Title) ?? 'Vulnerability'} in ${name}${version ? ` ${version}` : ''}`,
      description: [str(r.Library), str(r.Status) && `Status: ${r.Status}`].filter(Boolean).join('\n'),
      severity: severityOf(sev) ?? severityOf(str(r['CVSS score'])) ?? 'medium',
      toolSeverity: sev,
      cvssScore: Number.isFinite(Number(r['CVSS score'])) && r['CVSS score'] ? Number(r['CVSS score']) : undefined,
      vulnerabilityIds: vulnIds([cve(r.CVE)]),
      mitigation: str(r['Updated Version']) ? `Upgrade to ${r['Updated Version']}` : undefined,
      library: {
        name,
        version,
        ecosystem: str(r['Package manager'])?.toLowerCase(),
      },
      locator: str(r['Issue ID']),
      suppression: r.Ignored === 'true' ? { state: 'ignored', source: 'tool' } : undefined,
    });
  }
}

const isIssue = (i: unknown): boolean => hasKeys(i, 'issue_type', 'library') && isObj(obj(i).library);

export const veracodeScaJson: JsonFormat = {
  id: 'veracode-sca-json',
  title: 'Veracode SCA issues API JSON (srcclr)',
  testedWith: 'srcclr issues API v3 of 2022',
  kind: 'json',
  detect: (doc) => isArrayLikeOf(obj(obj(doc)._embedded).issues, isIssue),
  parse: parseJson,
};

export const veracodeScaCsv: CsvFormat = {
  id: 'veracode-sca-csv',
  title: 'Veracode SCA issues CSV export',
  testedWith: 'the 2022 export',
  kind: 'csv',
  detect: (header) =>
    ['Issue ID', 'Issue type', 'Library', 'Version in use', 'Coordinate 2'].every((h) => header.includes(h)),
  parse: parseCsv,
};
