import { Finding, Severity } from '../model';
import { arr, num, obj, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/** Kubescape's severity from a control's score factor (its own scale: 1–3 low ... 9–10 critical). */
function severityOfFactor(factor: number | undefined): Severity {
  if (factor === undefined) return 'medium';
  if (factor >= 9) return 'critical';
  if (factor >= 7) return 'high';
  if (factor >= 4) return 'medium';
  return 'low';
}

/**
 * `kubescape scan --format json` (v2, v3): one finding per failed control on one resource (a
 * control failing on three Deployments is three findings, each with its resource); passed,
 * skipped and excluded controls are not findings. The resource's manifest file is the location
 * where Kubescape scanned files.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  if (!hasKeys(doc, 'results')) {
    yield* parseV1(doc, ctx);
    return;
  }
  const controls = obj(obj(obj(doc).summaryDetails).controls);
  const objects = new Map<string, Record<string, unknown>>();
  for (const r of each(obj(doc).resources)) {
    const id = str(obj(r).resourceID);
    if (id) objects.set(id, obj(obj(r).object));
  }
  for (const r of each(obj(doc).results)) {
    const result = obj(r);
    const resourceId = str(result.resourceID) ?? 'unknown';
    const object = objects.get(resourceId) ?? {};
    const meta = obj(object.metadata);
    const [file] = (str(object.sourcePath) ?? '').split(':');
    for (const c of arr(result.controls)) {
      const control = obj(c);
      const status = str(obj(control.status).status) ?? str(control.status);
      if (status !== 'failed') continue;
      const id = str(control.controlID) ?? 'kubescape';
      const summary = obj(controls[id]);
      const factor = typeof summary.scoreFactor === 'number' ? summary.scoreFactor : undefined;
      const kind = str(object.kind) ?? resourceId.split('/').slice(-2)[0];
      const name = str(meta.name) ?? resourceId.split('/').pop();
      const paths = arr(control.rules).flatMap((rule) =>
        arr(obj(rule).paths).map((p) => str(obj(p).failedPath) ?? str(obj(p).fixPath && obj(obj(p).fixPath).path)),
      );
      yield ctx.finding({
        tool: 'kubescape',
        toolCategory: 'iac',
        ruleId: id,
        title: `${id} - ${str(control.name) ?? str(summary.name) ?? id}`,
        description:
          [
            `Resource: ${[str(meta.namespace), kind, name].filter(Boolean).join('/')}`,
            str(obj(summary.category).name) && `Category: ${String(obj(summary.category).name)}`,
            paths.filter(Boolean).length ? `Failed paths: ${paths.filter(Boolean).join(', ')}` : undefined,
          ]
            .filter(Boolean)
            .join('\n') || undefined,
        severity: severityOfFactor(factor),
        toolSeverity: factor === undefined ? undefined : String(factor),
        tags: ['kubernetes'],
        references: [`https://hub.armosec.io/docs/${id.toLowerCase()}`],
        filePath: file || undefined,
        resource: { id: resourceId, type: kind, name },
        locator: `${id}|${resourceId}`,
      });
    }
  }
}

/**
 * Kubescape v1 (`kubescape scan framework nsa -f json`, 1.0.x): an array of framework reports whose
 * control reports hold the failed alerts, each naming the Kubernetes objects it concerns. One finding
 * per failed control on one object; a control in two frameworks (NSA and MITRE share many) is one
 * finding, as in v2's results.
 */
function* parseV1(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const fw of each(doc)) {
    const framework = str(obj(fw).name);
    for (const c of arr(obj(fw).controlReports)) {
      const control = obj(c);
      const id = str(control.controlID) ?? str(control.name) ?? 'kubescape';
      const factor = num(control.baseScore) ?? num(control.scoreFactor);
      for (const rule of arr(control.ruleReports)) {
        for (const r of arr(obj(rule).ruleResponses)) {
          const response = obj(r);
          if (str(response.alertStatus) && response.alertStatus !== 'failed') continue;
          for (const o of arr(obj(response.alertObject).k8sApiObjects)) {
            const meta = obj(obj(o).metadata);
            const kind = str(obj(o).kind);
            const name = str(meta.name);
            const resourceId = [str(meta.namespace), kind, name].filter(Boolean).join('/') || 'cluster';
            yield ctx.finding({
              tool: 'kubescape',
              toolCategory: 'iac',
              ruleId: id,
              title: `${id} - ${str(control.name) ?? id}`,
              description:
                [str(control.description), str(response.alertMessage), framework && `Framework: ${framework}`]
                  .filter(Boolean)
                  .join('\n\n') || undefined,
              severity: severityOfFactor(factor),
              toolSeverity: factor === undefined ? undefined : String(factor),
              tags: ['kubernetes'],
              references: [`https://hub.armosec.io/docs/${id.toLowerCase()}`],
              mitigation: str(control.remediation),
              resource: { id: resourceId, type: kind, name },
              locator: `${id}|${resourceId}`,
            });
          }
        }
      }
    }
  }
}

const isFrameworkReport = (f: unknown): boolean => hasKeys(f, 'name', 'controlReports');

export const kubescape: JsonFormat = {
  id: 'kubescape',
  title: 'Kubescape JSON (kubescape scan --format json)',
  testedWith: 'Kubescape v1 framework reports, v2 and v3',
  kind: 'json',
  detect: (doc) =>
    (hasKeys(doc, 'summaryDetails', 'results') && hasKeys(doc, 'resources')) || isArrayLikeOf(doc, isFrameworkReport),
  parse,
};
