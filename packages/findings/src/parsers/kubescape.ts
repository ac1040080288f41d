import { Finding, Severity } from '../model';
import { arr, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

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
        locator: `${id}\u0000${resourceId}`,
      });
    }
  }
}

export const kubescape: JsonFormat = {
  id: 'kubescape',
  title: 'Kubescape JSON (kubescape scan --format json; v2, v3)',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'summaryDetails', 'results') && hasKeys(doc, 'resources'),
  parse,
};
