import {
  canSeeProject,
  CatalogClient,
  invalid,
  notFound,
  Principal,
  ScanningClient,
  ServiceData,
  Trx,
  unlessNotFound,
} from '@bulwark/platform';
import { ISSUE_EVENTS, QualityGateJson, writeEvent } from '@bulwark/contracts';
import { GateCondition, LinkedGate, layerVerdict } from './domain/gates';
import type { ScanCompleted } from './ingestion';
import { issueStore } from './store/issues';
import { GateLinkRecord, GateRecord, gateStore, LayerGateStateRecord, policyStore } from './store/gates';

type ConditionInput = Omit<GateCondition, 'id'>;

/** A gate with its conditions and the layers it is linked to. */
export interface GateDetails {
  gate: GateRecord;
  conditions: GateCondition[];
  links: GateLinkRecord[];
}

/** A layer's gates and their last verdict. */
export interface LayerGateState {
  layerId: string;
  gates: LinkedGate[];
  state: LayerGateStateRecord | undefined;
}

/** Quality gates, their conditions and links, and the verdict after each scan. */
export class QualityGates {
  constructor(
    private readonly data: ServiceData,
    private readonly scanning: ScanningClient,
    private readonly catalog: CatalogClient,
  ) {}

  async details(gate: GateRecord): Promise<GateDetails> {
    const [conditions, links] = await Promise.all([
      gateStore.conditionsOf(this.data.db, [gate.id]),
      gateStore.linksOf(this.data.db, [gate.id]),
    ]);
    return { gate, conditions, links };
  }

  create(principal: Principal, name: string) {
    return gateStore.insert(this.data.db, name, principal.username);
  }

  async get(id: string): Promise<GateRecord> {
    const gate = await gateStore.get(this.data.db, id);
    if (!gate) throw notFound(`Quality gate ${id}`);
    return gate;
  }

  async rename(id: string, name: string): Promise<GateRecord> {
    const gate = await gateStore.rename(this.data.db, id, name);
    if (!gate) throw notFound(`Quality gate ${id}`);
    return gate;
  }

  private async gateField(id: string): Promise<void> {
    if (!(await gateStore.get(this.data.db, id)))
      throw invalid('Unknown quality_gate_id', [{ field: 'quality_gate_id', problem: 'is not a known quality gate' }]);
  }

  async addCondition(c: ConditionInput): Promise<GateCondition> {
    await this.gateField(c.qualityGateId);
    return gateStore.addCondition(this.data.db, c);
  }

  async updateCondition(id: string, c: ConditionInput): Promise<GateCondition> {
    await this.gateField(c.qualityGateId);
    const updated = await gateStore.updateCondition(this.data.db, id, c);
    if (!updated) throw notFound(`Condition ${id}`);
    return updated;
  }

  /** The layer as the caller may see it; unknown and invisible layers are named in a 400 alike. */
  private async layer(principal: Principal, layerId: string) {
    const layer = await this.catalog.getLayer({ id: layerId }).catch(unlessNotFound);
    if (!layer || !canSeeProject(principal, layer.projectCode))
      throw invalid('Unknown layer_id', [{ field: 'layer_id', problem: 'is not a known layer' }]);
    return layer;
  }

  /** Refuses links to gates that do not exist, naming the element. */
  async assertGates(gateIds: string[], field = 'quality_gates'): Promise<void> {
    for (const [i, id] of gateIds.entries()) {
      if (!(await gateStore.get(this.data.db, id)))
        throw invalid(`Unknown ${field}[${i}].quality_gate_id`, [
          { field: `${field}[${i}].quality_gate_id`, problem: 'is not a known quality gate' },
        ]);
    }
  }

  async link(
    principal: Principal,
    layerId: string,
    links: { qualityGateId: string; action: string }[],
    replace: boolean,
  ): Promise<LayerGateState> {
    const layer = await this.layer(principal, layerId);
    if (replace) await this.assertGates(links.map((l) => l.qualityGateId));
    else await this.gateField(links[0].qualityGateId);
    await this.data.transaction((trx) => gateStore.setLinks(trx, layerId, layer.projectCode, links, replace));
    return this.layerState(principal, layerId);
  }

  async layerState(principal: Principal, layerId: string): Promise<LayerGateState> {
    await this.layer(principal, layerId);
    const gates = await gateStore.linkedTo(this.data.db, layerId);
    const state = await gateStore.layerState(this.data.db, layerId);
    return { layerId, gates, state };
  }

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
