import { CloudResource, Finding } from '../model';
import { addCvss, arr, obj, severityOf, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';
import { packageVulnerability } from './package-vulnerability';

/** The report kinds Trivy Operator writes whose `report.checks` are configuration checks. */
const CHECK_KINDS = new Set([
  'ConfigAuditReport',
  'ClusterConfigAuditReport',
  'RbacAssessmentReport',
  'ClusterRbacAssessmentReport',
  'InfraAssessmentReport',
  'ClusterInfraAssessmentReport',
]);
const KINDS = new Set([...CHECK_KINDS, 'VulnerabilityReport', 'ExposedSecretReport', 'ClusterComplianceReport']);

/** The Kubernetes object a report is about, from the operator's labels (else the report's own name). */
function resourceOf(report: Record<string, unknown>): CloudResource {
  const meta = obj(report.metadata);
  const labels = obj(meta.labels);
  const namespace = str(labels['trivy-operator.resource.namespace']) ?? str(meta.namespace);
  const kind = str(labels['trivy-operator.resource.kind']);
  const name = str(labels['trivy-operator.resource.name']) ?? str(meta.name) ?? 'unknown';
  const container = str(labels['trivy-operator.container.name']);
  const id = [namespace, kind, name].filter(Boolean).join('/') + (container ? `/${container}` : '');
  return { id, type: kind, name };
}

function* vulnerabilities(r: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const report = obj(r.report);
  const artifact = obj(report.artifact);
  const image = [str(obj(report.registry).server), str(artifact.repository)].filter(Boolean).join('/');
  const tag = str(artifact.tag) ?? str(artifact.digest);
  const resource = resourceOf(r);
  for (const v of each(report.vulnerabilities)) {
    const x = obj(v);
    const id = str(x.vulnerabilityID) ?? 'unknown';
    const name = str(x.resource) ?? 'unknown';
    const version = str(x.installedVersion);
    const fixed = str(x.fixedVersion);
    const sev = str(x.severity) ?? 'UNKNOWN';
    const init = ctx.finding({
      tool: 'trivy-operator',
      toolCategory: 'container',
      ...packageVulnerability({
        id,
        name,
        version,
        fixedVersion: fixed,
        ecosystem: str(x.packageType),
        severity: sev,
      }),
      title: `${id} ${name} ${version ?? ''}`.trim(),
      description:
        [str(x.title), str(x.description), image && `Image: ${image}${tag ? `:${tag}` : ''}`]
          .filter(Boolean)
          .join('\n\n') || undefined,
      tags: [str(x.packageType), str(x.class)].filter((t): t is string => !!t),
      references: [str(x.primaryLink), ...arr(x.links).map(str)].filter((u): u is string => !!u),
      filePath: str(x.target) ?? str(x.pkgPath),
      resource,
    });
    addCvss(init, obj(obj(x.cvss).nvd).V3Vector, x.score);
    yield init;
  }
}

function* secrets(r: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const resource = resourceOf(r);
  for (const s of each(obj(r.report).secrets)) {
    const x = obj(s);
    const rule = str(x.ruleID) ?? 'secret';
    const target = str(x.target);
    const sev = str(x.severity) ?? 'UNKNOWN';
    yield ctx.finding({
      tool: 'trivy-operator',
      toolCategory: 'secrets',
      ruleId: rule,
      title: `Secret detected in ${target ?? resource.id} - ${str(x.title) ?? rule}`,
      // The match is written masked by Trivy; it is still the evidence a reader needs.
      description: str(x.match),
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: ['secret', str(x.category)].filter((t): t is string => !!t),
      filePath: target,
      resource,
      locator: `${rule}|${str(x.match) ?? ''}`,
    });
  }
}

/** Trivy's AVD id of a check id: KSV014 is AVD-KSV-0014. */
function avdId(id: string): string[] {
  const m = /^([A-Z]+)(\d+)$/.exec(id);
  return m ? [`AVD-${m[1]}-${m[2].padStart(4, '0')}`] : [];
}

function* checks(r: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const resource = resourceOf(r);
  for (const c of each(obj(r.report).checks)) {
    const x = obj(c);
    if (x.success === true) continue;
    const id = str(x.checkID) ?? str(x.id) ?? '0';
    const sev = str(x.severity) ?? 'UNKNOWN';
    yield ctx.finding({
      tool: 'trivy-operator',
      toolCategory: 'iac',
      ruleId: id,
      title: `${id} - ${str(x.title) ?? id}`,
      description: [str(x.description), ...arr(x.messages).map(str)].filter(Boolean).join('\n\n') || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: ['kubernetes', str(x.category)].filter((t): t is string => !!t),
      vulnerabilityIds: avdId(id),
      references: /^[A-Z]+\d+$/.test(id) ? [`https://avd.aquasec.com/misconfig/${id.toLowerCase()}`] : [],
      mitigation: str(x.remediation),
      resource,
    });
  }
}

/** A cluster compliance report: one finding per control with failed checks. */
function* compliance(r: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const spec = obj(obj(r.spec).compliance);
  const byId = new Map(arr(spec.controls).map((c) => [str(obj(c).id), obj(c)]));
  const status = obj(r.status);
  const summary = obj(status.summaryReport);
  const benchmark = str(summary.title) ?? str(spec.title) ?? str(obj(r.metadata).name) ?? 'compliance';
  for (const c of arr(summary.controlCheck)) {
    const x = obj(c);
    if (!(typeof x.totalFail === 'number' && x.totalFail > 0)) continue;
    const id = str(x.id) ?? 'control';
    const control = byId.get(id) ?? {};
    const sev = str(x.severity) ?? str(control.severity) ?? 'UNKNOWN';
    yield ctx.finding({
      tool: 'trivy-operator',
      toolCategory: 'iac',
      ruleId: id,
      title: `${id} - ${str(x.name) ?? str(control.name) ?? id}`,
      description:
        [str(control.description), `Benchmark: ${benchmark}`, `Failed resources: ${String(x.totalFail)}`]
          .filter(Boolean)
          .join('\n\n') || undefined,
      severity: severityOf(sev) ?? 'info',
      toolSeverity: sev,
      tags: ['kubernetes', 'compliance'],
      vulnerabilityIds: arr(control.checks)
        .map((k) => str(obj(k).id))
        .filter((k): k is string => !!k),
      references: arr(spec.relatedResources)
        .map(str)
        .filter((u): u is string => !!u),
      resource: { id: `cluster/${str(obj(r.metadata).name) ?? benchmark}`, type: 'ClusterComplianceReport' },
    });
  }
}

function* parseOne(r: unknown, ctx: ParseContext): Generator<Finding> {
  const report = obj(r);
  const kind = str(report.kind) ?? '';
  if (kind === 'VulnerabilityReport') yield* vulnerabilities(report, ctx);
  else if (kind === 'ExposedSecretReport') yield* secrets(report, ctx);
  else if (kind === 'ClusterComplianceReport') yield* compliance(report, ctx);
  else if (CHECK_KINDS.has(kind)) yield* checks(report, ctx);
}

/**
 * Trivy Operator custom resources as `kubectl get ... -o json` writes them (operator 0.11–0.2x): one
 * report, an array of reports, or a `List` of `items`. Vulnerability reports give one finding per
 * vulnerability in one container's image, config, RBAC and infra assessments one per failed check,
 * exposed-secret reports one per secret, cluster compliance reports one per control with failed
 * checks. Every finding carries the workload it was found on (namespace/kind/name/container), so
 * the same CVE in two workloads is two findings.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  if (isReport(doc)) yield* parseOne(doc, ctx);
  else for (const r of each(hasKeys(doc, 'items') ? obj(doc).items : doc)) yield* parseOne(r, ctx);
}

const isReport = (r: unknown): boolean =>
  hasKeys(r, 'apiVersion', 'kind') &&
  /^aquasecurity\.github\.io\//.test(String(obj(r).apiVersion)) &&
  KINDS.has(String(obj(r).kind));

export const trivyOperator: JsonFormat = {
  id: 'trivy-operator',
  title:
    'Trivy Operator reports (kubectl -o json: VulnerabilityReport, ConfigAudit/RbacAssessment/InfraAssessment, ExposedSecret, ClusterCompliance)',
  testedWith: 'Trivy Operator 0.11–0.2x',
  kind: 'json',
  detect: (doc) =>
    isReport(doc) ||
    isArrayLikeOf(doc, isReport) ||
    (hasKeys(doc, 'items', 'kind') && isArrayLikeOf(obj(doc).items, isReport)),
  // `kubectl get vulnerabilityreports -o json` in a namespace without reports: a List of no items.
  isEmptyReport: (doc) => hasKeys(doc, 'items', 'kind') && isArrayLikeOf(obj(doc).items, () => false, true),
  parse,
};
