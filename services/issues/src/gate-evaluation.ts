import type { Trx } from '@bulwark/platform';
import { ISSUE_EVENTS, writeEvent } from '@bulwark/contracts';
import { EXPLOIT_CONDITIONS, LinkedGate, layerVerdict } from './domain/gates';
import type { ScanCompleted } from './ingestion/input';
import { issueStore } from './store/issues/issue-store';
import { gateStore } from './store/gates';
import { policyStore } from './store/policies';

/** The verdict of a layer's quality gates after each scan. */
export class GateEvaluation {
  /** The gates of a layer: its own links, then those of policies matching its project's tags. */
  private async gatesFor(trx: Trx, layerId: string, projectTags: string[] | undefined): Promise<LinkedGate[]> {
    const direct = await gateStore.linkedTo(trx, layerId);
    const policies = projectTags ? await policyStore.forTags(trx, projectTags) : [];
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
   * Evaluates the layer's gates after a scan's ingestion (in its transaction, with the project's tags
   * read from the catalog before it) and publishes the verdict, from which scanning stores it on the
   * scan result; null when the layer has no gate.
   */
  async evaluateAfterScan(trx: Trx, scan: ScanCompleted, projectTags: string[] | undefined) {
    const gates = await this.gatesFor(trx, scan.layer_id, projectTags);
    if (gates.length === 0) return null;
    const withCwes = gates.some((g) => g.conditions.some((c) => c.conditionType === 'cwe'));
    const withExploits = gates.some((g) => g.conditions.some((c) => EXPLOIT_CONDITIONS.includes(c.conditionType)));
    const counts = await issueStore.layerCounts(trx, scan.layer_id, scan.scan_result_id, withCwes, withExploits);
    const verdict = {
      ...layerVerdict(gates, counts),
      scan_result_id: scan.scan_result_id,
      layer_id: scan.layer_id,
      evaluated_at: new Date().toISOString(),
    };
    await gateStore.setLayerState(trx, scan.layer_id, scan.scan_result_id, verdict.locked, verdict);
    await writeEvent(trx, ISSUE_EVENTS.qualityGateEvaluated, scan.scan_result_id, {
      scan_result_id: scan.scan_result_id,
      layer_id: scan.layer_id,
      project_code: scan.project_code,
      verdict,
    });
    return verdict;
  }
}
