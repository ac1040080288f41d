import { Finding, FindingInit } from '../model';
import { addCvss, isObj, severityOf, str, vulnIds } from '../normalize';
import { CsvFormat, ParseContext } from './common';

/**
 * Wiz CSV exports: issues (a control failing on a cloud or Kubernetes resource) and vulnerability
 * findings (a package with a CVE on an asset). Resolved and rejected ones are kept with their state.
 */

function suppressionOf(status: string | undefined, resolution: string | undefined): FindingInit['suppression'] {
  const s = status?.toLowerCase();
  if (s === 'resolved' || s === 'rejected') return { state: s, source: 'tool', justification: resolution };
  return undefined;
}

/** Wiz writes resource tags as a JSON object; kept as "key: value" tags. */
function tagsOf(json: string | undefined): string[] {
  if (!json) return [];
  try {
    const tags: unknown = JSON.parse(json);
    return isObj(tags) ? Object.entries(tags).map(([k, v]) => (str(v) ? `${k}: ${String(v)}` : k)) : [];
  } catch {
    return [];
  }
}

function issue(row: Record<string, string>, ctx: ParseContext): Finding {
  const col = (name: string): string | undefined => str(row[name]);
  const sev = col('Severity') ?? 'INFORMATIONAL';
  return ctx.finding({
    tool: 'wiz',
    toolCategory: 'iac',
    ruleId: col('Control ID'),
    // Titles are kept as written, trailing space included.
    title: row.Title || 'Wiz issue',
    description: col('Description'),
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    tags: [
      col('Resource Platform'),
      col('Kubernetes Cluster'),
      col('Kubernetes Namespace'),
      ...tagsOf(col('Resource Tags')),
    ].filter((t): t is string => !!t),
    references: [col('Wiz URL'), col('Cloud Provider URL')].filter((u): u is string => !!u),
    mitigation: col('Remediation Recommendation'),
    resource: {
      id: col('Resource external ID') ?? col('Resource vertex ID') ?? col('Resource Name') ?? 'unknown',
      type: col('Resource Type'),
      name: col('Resource Name'),
      region: col('Resource Region'),
      account: col('Subscription ID'),
    },
    locator: col('Issue ID'),
    suppression: suppressionOf(col('Status'), col('Resolution')),
    detectedAt: col('Created At'),
  });
}

function vulnerability(row: Record<string, string>, ctx: ParseContext): Finding {
  const col = (name: string): string | undefined => str(row[name]);
  const sev = col('VendorSeverity') ?? col('CVSSSeverity') ?? 'None';
  const id = col('Name') ?? 'unknown';
  const pkg = col('DetailedName') ?? 'unknown';
  const init: FindingInit = {
    tool: 'wiz',
    toolCategory: col('DetectionMethod')?.toLowerCase() === 'os' ? 'container' : 'sca',
    ruleId: id,
    title: `${pkg}: ${id}`,
    description:
      [col('Description'), col('LocationPath') && `Location path: ${col('LocationPath')}`]
        .filter(Boolean)
        .join('\n\n') || undefined,
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    tags: [col('DetectionMethod'), col('CloudPlatform'), ...tagsOf(col('Tags'))].filter((t): t is string => !!t),
    vulnerabilityIds: vulnIds([id]),
    references: [col('Link'), col('WizURL')].filter((u): u is string => !!u),
    mitigation: col('Remediation'),
    library: { name: pkg, version: col('Version'), fixedVersion: col('FixedVersion') },
    filePath: col('LocationPath'),
    resource: {
      id: col('ProviderUniqueId') ?? col('AssetID') ?? col('AssetName') ?? 'unknown',
      name: col('AssetName'),
      region: col('AssetRegion'),
      account: col('SubscriptionExternalId'),
    },
    suppression: suppressionOf(col('FindingStatus'), col('ResolutionReason')),
    detectedAt: col('FirstDetected'),
  };
  addCvss(init, col('CVSSVector'), col('Score'));
  if (col('HasCisaKevExploit')?.toLowerCase() === 'true') init.knownExploited = true;
  return ctx.finding(init);
}

function* parse(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  for (const row of rows) yield 'Issue ID' in row ? issue(row, ctx) : vulnerability(row, ctx);
}

export const wiz: CsvFormat = {
  id: 'wiz',
  title: 'Wiz CSV (issues export; vulnerability findings export)',
  testedWith: 'Wiz issues and vulnerability findings CSV exports, from corpus samples that carry no tool version',
  kind: 'csv',
  detect: (header) =>
    ['Issue ID', 'Title', 'Severity', 'Resource external ID'].every((c) => header.includes(c)) ||
    ['DetailedName', 'FindingStatus', 'AssetID'].every((c) => header.includes(c)),
  parse,
};
