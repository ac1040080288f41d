import { Finding, FindingInit } from '../model';
import { arr, obj, severityOf, str } from '../normalize';
import { CsvFormat, each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * Prowler (AWS, Azure, GCP, Kubernetes): v4's OCSF JSON and `;`-separated CSV, and v3's JSON.
 * `PASS` results are skipped (as DefectDojo does); `FAIL` and `MANUAL` ones are findings, muted ones
 * suppressed. Prowler's finding uid (provider, check, account, region, resource) is the identity,
 * so a result written twice is one finding.
 */

interface ProwlerResult {
  status?: string;
  muted: boolean;
  checkId?: string;
  checkTitle?: string;
  statusExtended?: string;
  severity?: string;
  description?: string;
  risk?: string;
  remediation?: string;
  references: (string | undefined)[];
  uid?: string;
  provider?: string;
  service?: string;
  resource: { id?: string; type?: string; name?: string; region?: string; account?: string };
  time?: string;
}

function toFinding(r: ProwlerResult, ctx: ParseContext): Finding | undefined {
  const status = r.status?.toUpperCase();
  if (status === 'PASS') return undefined;
  const sev = r.severity ?? 'informational';
  const title = r.checkTitle ?? r.statusExtended ?? r.checkId ?? 'Prowler check';
  const init: FindingInit = {
    tool: 'prowler',
    toolCategory: 'iac',
    ruleId: r.checkId,
    title,
    description:
      [r.statusExtended, r.description, r.risk && `Risk: ${r.risk}`].filter(Boolean).join('\n\n') || undefined,
    severity: severityOf(sev) ?? 'info',
    toolSeverity: sev,
    tags: [r.provider, r.service, status].filter((t): t is string => !!t),
    references: r.references.filter((u, i, all): u is string => !!u && /^https?:\/\//.test(u) && all.indexOf(u) === i),
    mitigation: r.remediation,
    resource: r.resource.id ? { ...r.resource, id: r.resource.id } : undefined,
    locator: r.uid ?? r.statusExtended,
    suppression: r.muted ? { state: 'muted', source: 'tool' } : undefined,
    detectedAt: r.time,
  };
  return ctx.finding(init);
}

function fromOcsf(x: Record<string, unknown>): ProwlerResult {
  const info = obj(x.finding_info);
  const resource = obj(arr(x.resources)[0]);
  const cloud = obj(x.cloud);
  const remediation = obj(x.remediation);
  const unmapped = obj(x.unmapped);
  return {
    status: str(x.status_code),
    muted: str(x.status)?.toLowerCase() === 'suppressed' || unmapped.muted === true,
    checkId: str(obj(x.metadata).event_code),
    checkTitle: str(info.title),
    statusExtended: str(x.status_detail) ?? str(x.message),
    severity: str(x.severity),
    description: str(info.desc),
    risk: str(x.risk_details),
    remediation: str(remediation.desc),
    references: [str(unmapped.related_url), ...arr(remediation.references).map(str)],
    uid: str(info.uid),
    provider: str(cloud.provider),
    service: str(obj(resource.group).name),
    resource: {
      id: str(resource.uid),
      type: str(resource.type),
      name: str(resource.name),
      region: str(resource.region) ?? str(cloud.region),
      account: str(obj(cloud.account).uid),
    },
    time: str(x.time_dt) ?? str(info.created_time_dt),
  };
}

/** Prowler v3's JSON (`-M json`). */
function fromV3(x: Record<string, unknown>): ProwlerResult {
  const recommendation = obj(obj(x.Remediation).Recommendation);
  return {
    status: str(x.Status),
    muted: x.Muted === true,
    checkId: str(x.CheckID),
    checkTitle: str(x.CheckTitle),
    statusExtended: str(x.StatusExtended),
    severity: str(x.Severity),
    description: str(x.Description),
    risk: str(x.Risk),
    remediation: str(recommendation.Text),
    references: [str(x.RelatedUrl), str(recommendation.Url)],
    uid: str(x.FindingUniqueId),
    provider: str(x.Provider),
    service: str(x.ServiceName),
    resource: {
      id: str(x.ResourceArn) ?? str(x.ResourceId),
      type: str(x.ResourceType),
      region: str(x.Region),
      account: str(x.AccountId) ?? str(x.SubscriptionId) ?? str(x.ProjectId),
    },
    time: str(x.AssessmentStartTime),
  };
}

function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(doc)) {
    const x = obj(r);
    const f = toFinding('status_code' in x ? fromOcsf(x) : fromV3(x), ctx);
    if (f) yield f;
  }
}

const isOcsf = (x: unknown): boolean =>
  hasKeys(x, 'status_code', 'finding_info') && str(obj(obj(obj(x).metadata).product).name)?.toLowerCase() === 'prowler';
const isV3 = (x: unknown): boolean => hasKeys(x, 'CheckID', 'Status', 'StatusExtended');

export const prowler: JsonFormat = {
  id: 'prowler',
  title: 'Prowler JSON (OCSF and native JSON)',
  testedWith: 'Prowler v3 (JSON) and v4 (OCSF)',
  kind: 'json',
  detect: (doc) => isArrayLikeOf(doc, (x) => isOcsf(x) || isV3(x)),
  isEmptyReport: (doc) => Array.isArray(doc) && doc.length === 0,
  parse: parseJson,
};

function* parseCsv(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  for (const row of rows) {
    const col = (...names: string[]): string | undefined => names.map((n) => str(row[n])).find((v) => v !== undefined);
    const f = toFinding(
      {
        status: col('STATUS'),
        muted: col('MUTED')?.toLowerCase() === 'true',
        checkId: col('CHECK_ID'),
        checkTitle: col('CHECK_TITLE'),
        statusExtended: col('STATUS_EXTENDED'),
        severity: col('SEVERITY'),
        description: col('DESCRIPTION'),
        risk: col('RISK'),
        remediation: col('REMEDIATION_RECOMMENDATION_TEXT'),
        references: [col('RELATED_URL'), col('REMEDIATION_RECOMMENDATION_URL')],
        uid: col('FINDING_UID', 'FINDING_UNIQUE_ID'),
        provider: col('PROVIDER'),
        service: col('SERVICE_NAME'),
        resource: {
          id: col('RESOURCE_UID', 'RESOURCE_ARN', 'RESOURCE_ID'),
          type: col('RESOURCE_TYPE'),
          name: col('RESOURCE_NAME'),
          region: col('REGION'),
          account: col('ACCOUNT_UID', 'ACCOUNT_ID', 'SUBSCRIPTION_ID', 'PROJECT_ID'),
        },
        time: col('TIMESTAMP', 'ASSESSMENT_START_TIME'),
      },
      ctx,
    );
    if (f) yield f;
  }
}

export const prowlerCsv: CsvFormat = {
  id: 'prowler-csv',
  title: 'Prowler CSV (`;`-separated)',
  testedWith: 'Prowler v3 and v4',
  kind: 'csv',
  detect: (header) => ['CHECK_ID', 'STATUS', 'STATUS_EXTENDED', 'SEVERITY'].every((c) => header.includes(c)),
  parse: parseCsv,
};
