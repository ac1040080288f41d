import { notFound, Principal, ServiceData } from '@bulwark/platform';
import { deleteInScope } from './bulk-delete';
import { CallerScopes } from './caller-scope';
import type { GateCondition } from './domain/gates';
import type { QualityGates } from './quality-gates';
import { gateStore } from './store/gates';

type ConditionInput = Omit<GateCondition, 'id'>;

/** The conditions of quality gates: a condition changes its gate, so the gate's projects decide who may. */
export class GateConditions {
  constructor(
    private readonly data: ServiceData,
    private readonly gates: QualityGates,
    private readonly scopes: CallerScopes,
  ) {}

  async add(principal: Principal, c: ConditionInput): Promise<GateCondition> {
    const scope = await this.scopes.withTags(principal);
    const projects = await this.gates.seen(scope, this.data.db, [c.qualityGateId], () => 'quality_gate_id');
    scope.assertMayChange(projects.now(c.qualityGateId), `quality gate ${c.qualityGateId}`);
    return gateStore.addCondition(this.data.db, c);
  }

  /** Moving a condition to another gate changes both gates. */
  async update(principal: Principal, id: string, c: ConditionInput): Promise<GateCondition> {
    const scope = await this.scopes.withTags(principal);
    const current = (await gateStore.conditionsById(this.data.db, [id])).get(id);
    const gateIds = [...new Set([c.qualityGateId, ...(current ? [current.qualityGateId] : [])])];
    const projects = await this.gates.projectsOf(this.data.db, gateIds);
    // A condition of a gate the caller does not see is unknown; an unknown gate in the body is a 400 first.
    if (current && !scope.sees(projects.now(current.qualityGateId))) throw notFound(`Condition ${id}`);
    await this.gates.seen(scope, this.data.db, [c.qualityGateId], () => 'quality_gate_id');
    if (!current) throw notFound(`Condition ${id}`);
    for (const gateId of gateIds) scope.assertMayChange(projects.now(gateId), `quality gate ${gateId}`);
    const updated = await gateStore.updateCondition(this.data.db, id, c);
    if (!updated) throw notFound(`Condition ${id}`);
    return updated;
  }

  async delete(principal: Principal, ids: string[]) {
    const scope = await this.scopes.withTags(principal);
    return this.data.transaction(async (trx) => {
      const conditions = await gateStore.conditionsById(trx, ids);
      const projects = await this.gates.projectsOf(trx, [
        ...new Set([...conditions.values()].map((c) => c.qualityGateId)),
      ]);
      return deleteInScope(
        ids,
        conditions,
        (c) => scope.access(projects.now(c.qualityGateId), `quality gate ${c.qualityGateId}`),
        (allowed) => gateStore.deleteConditions(trx, allowed),
      );
    });
  }
}
