import { Finding, FindingInit, Severity } from '../model';
import { addCvss, arr, num, obj, severityOf, str, vulnIds } from '../normalize';
import { each, first, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * AWS Security Finding Format (ASFF) as Security Hub exports it (`aws securityhub get-findings`:
 * `{"Findings": [...]}`, also `findings`, and an EventBridge event's `detail.findings`), from any
 * product: Security Hub controls, Config, Inspector, GuardDuty, Macie, ...
 */

/** ASFF's normalized 0–100 scale, where the label is missing. */
function severityOfNormalized(n: number): Severity {
  if (n >= 90) return 'critical';
  if (n >= 70) return 'high';
  if (n >= 40) return 'medium';
  if (n >= 1) return 'low';
  return 'info';
}

/** A finding Security Hub says is closed or passed: kept, with that state. */
function suppressionOf(f: Record<string, unknown>): FindingInit['suppression'] {
  const workflow = (str(obj(f.Workflow).Status) ?? str(f.WorkflowState))?.toUpperCase();
  if (workflow === 'SUPPRESSED') return { state: 'suppressed', source: 'tool', justification: str(obj(f.Note).Text) };
  if (workflow === 'RESOLVED') return { state: 'resolved', source: 'tool' };
  if (str(obj(f.Compliance).Status)?.toUpperCase() === 'PASSED') return { state: 'passed', source: 'tool' };
  if (str(f.RecordState)?.toUpperCase() === 'ARCHIVED') return { state: 'archived', source: 'tool' };
  return undefined;
}

function fromAsff(f: Record<string, unknown>, ctx: ParseContext): Finding {
  const fields = obj(f.ProductFields);
  const severity = obj(f.Severity);
  const label = str(severity.Label) ?? str(obj(obj(f.FindingProviderFields).Severity).Label);
  const normalized = num(severity.Normalized);
  const resource = obj(first(f.Resources));
  const vulnerabilities = arr(f.Vulnerabilities).map(obj);
  const pkg = obj(first(vulnerabilities[0]?.VulnerablePackages));
  const recommendation = obj(obj(f.Remediation).Recommendation);
  const product = str(f.ProductName) ?? str(fields['aws/securityhub/ProductName']);
  const init: FindingInit = {
    tool: 'aws-security-hub',
    // Package vulnerabilities are dependency findings; controls and threat detections are findings on the infrastructure.
    toolCategory: str(pkg.Name) ? 'sca' : 'iac',
    ruleId: str(fields.ControlId) ?? str(obj(f.Compliance).SecurityControlId) ?? str(f.GeneratorId),
    title: str(f.Title) ?? 'Security Hub finding',
    description: str(f.Description),
    severity: severityOf(label) ?? (normalized !== undefined ? severityOfNormalized(normalized) : 'info'),
    toolSeverity: label ?? str(severity.Original),
    tags: [product, ...arr(f.Types).map(str)].filter((t): t is string => !!t),
    vulnerabilityIds: vulnIds(vulnerabilities.map((v) => v.Id)),
    references: [
      str(recommendation.Url),
      str(f.SourceUrl),
      ...vulnerabilities.flatMap((v) => [str(obj(v.Vendor).Url), ...arr(v.ReferenceUrls).map(str)]),
    ].filter((u, i, all): u is string => !!u && all.indexOf(u) === i),
    mitigation:
      [str(recommendation.Text), str(pkg.Remediation)].filter((t) => t && t !== 'None Provided').join('\n') ||
      undefined,
    library: str(pkg.Name)
      ? {
          name: String(pkg.Name),
          version: [str(pkg.Version), str(pkg.Release)].filter(Boolean).join('-') || undefined,
          fixedVersion: str(pkg.FixedInVersion),
          ecosystem: str(pkg.PackageManager),
        }
      : undefined,
    resource: str(resource.Id)
      ? {
          id: String(resource.Id),
          type: str(resource.Type),
          region: str(resource.Region) ?? str(f.Region),
          account: str(f.AwsAccountId),
        }
      : undefined,
    // The product's identity of the finding, stable across its updates.
    locator: str(f.Id),
    suppression: suppressionOf(f),
    detectedAt: str(f.FirstObservedAt) ?? str(f.CreatedAt),
  };
  for (const v of vulnerabilities) for (const c of arr(v.Cvss)) addCvss(init, obj(c).BaseVector, obj(c).BaseScore);
  const epss = num(vulnerabilities[0]?.EpssScore);
  if (epss !== undefined) init.epss = { score: epss };
  return ctx.finding(init);
}

function findingsOf(doc: unknown): unknown {
  const o = obj(doc);
  return o.Findings ?? o.findings ?? obj(o.detail).findings;
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const f of each(findingsOf(doc))) yield fromAsff(obj(f), ctx);
}

const isAsff = (f: unknown): boolean =>
  hasKeys(f, 'SchemaVersion', 'ProductArn') || hasKeys(f, 'ProductArn', 'GeneratorId', 'AwsAccountId');

export const awsSecurityHub: JsonFormat = {
  id: 'aws-security-hub',
  title: 'AWS Security Hub findings JSON (ASFF: get-findings export, EventBridge event)',
  testedWith: 'ASFF SchemaVersion 2018-10-08 (get-findings exports and EventBridge events)',
  kind: 'json',
  detect: (doc) => isAsff(first(findingsOf(doc))),
  isEmptyReport: (doc) =>
    (hasKeys(doc, 'Findings') || hasKeys(doc, 'findings')) &&
    Object.keys(obj(doc)).length <= 2 &&
    first(findingsOf(doc)) === undefined,
  parse,
};
