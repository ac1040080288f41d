import { CatalogClient, ScanningClient, Trx, unlessNotFound } from '@bulwark/platform';
import { ISSUE_EVENTS, QualityGateJson, writeEvent } from '@bulwark/contracts';
import { LinkedGate, layerVerdict } from './domain/gates';
import type { ScanCompleted } from './ingestion';
import { issueStore } from './store/issues';
import { gateStore, policyStore } from './store/gates';

/** The verdict of a layer's quality gates after each scan. */
export class GateEvaluation {
  constructor(
    private readonly scanning: ScanningClient,
    private readonly catalog: CatalogClient,
  ) {}

  /** The gates of a layer: its own links, then those of policies matching its project's tags. */
  private async gatesFor(trx: Trx, layerId: string, projectCode: string): Promise<LinkedGate[]> {
    const direct = await gateStore.linkedTo(trx, layerId);
    // Policies may hold a lock gate: a catalog that cannot answer fails the evaluation (and the
    // ingestion with it, to be retried), never a verdict without them.
    const project = await this.catalog.getProject({ code: projectCode }).catch(unlessNotFound);
    const policies = project ? await policyStore.forTags(trx, project.tags) : [];
    const fromPolicies = policies
      .flatMap((p) => p.qualityGates)
      .map((l) => ({ qualityGateId: l.quality_gate_id, action: l.action }))
      .filter((l) => !direct.some((d) => d.id === l.qualityGateId));
    const unique = fromPolicies.filter(
      (l, i) => fromPolicies.findIndex((x) => x.qualityGateId === l.qualityGateId) === i,
    );
    return [...direct, ...(await gateStore.withConditions(trx, unique))];
  }

  /**
   * Evaluates the layer's gates after a scan's ingestion (in its transaction), stores the verdict on
   * the scan result and publishes it; null when the layer has no gate.
   */
  async evaluateAfterScan(trx: Trx, scan: ScanCompleted) {
    const gates = await this.gatesFor(trx, scan.layer_id, scan.project_code);
    if (gates.length === 0) return null;
    const withCwes = gates.some((g) => g.conditions.some((c) => c.conditionType === 'cwe'));
    const counts = await issueStore.layerCounts(trx, scan.layer_id, scan.scan_result_id, withCwes);
    const verdict = {
      ...layerVerdict(gates, counts),
      scan_result_id: scan.scan_result_id,
      layer_id: scan.layer_id,
      evaluated_at: new Date().toISOString(),
    };
    await gateStore.setLayerState(trx, scan.layer_id, scan.scan_result_id, verdict.locked, verdict);
    // Setting the same verdict again is harmless, so a retried ingestion may repeat this call.
    await this.scanning.setQualityGate({
      scanResultId: scan.scan_result_id,
      qualityGateJson: JSON.stringify(verdict satisfies QualityGateJson),
    });
    await writeEvent(trx, ISSUE_EVENTS.qualityGateEvaluated, scan.scan_result_id, {
      scan_result_id: scan.scan_result_id,
      layer_id: scan.layer_id,
      project_code: scan.project_code,
      verdict,
    });
    return verdict;
  }
}
