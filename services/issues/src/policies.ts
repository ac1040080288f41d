import { notFound, pageOf, Principal, projectSet, ServiceData } from '@bulwark/platform';
import { deleteInScope } from './bulk-delete';
import { CallerScope, CallerScopes } from './caller-scope';
import type { QualityGates } from './quality-gates';
import { PolicyGate, PolicyRecord, policyStore } from './store/policies';

export interface PolicyInput {
  name: string;
  description?: string;
  project_tags: string[];
  quality_gates?: PolicyGate[];
}

/** At most this many policies are read for one list of a caller limited to some projects. */
const READ_CAP = 10000;

const policyProjects = (tags: readonly string[]) => projectSet({ tags });

/** The policy as the caller may see it: only the tags its own projects carry. */
function inScope(scope: CallerScope, p: PolicyRecord): PolicyRecord {
  return scope.everyProject ? p : { ...p, projectTags: [...scope.visible(policyProjects(p.projectTags)).tags] };
}

/**
 * Policies: quality gates applied to every layer of the projects carrying one of the policy's tags.
 * A tag may be given to any project later, so only a caller of every project creates, changes or
 * deletes a policy with tags; a caller limited to some projects sees those whose tags its projects carry.
 */
export class Policies {
  constructor(
    private readonly data: ServiceData,
    private readonly gates: QualityGates,
    private readonly scopes: CallerScopes,
  ) {}

  private async gatesOf(scope: CallerScope, input: PolicyInput): Promise<PolicyGate[]> {
    const gates = input.quality_gates ?? [];
    await this.gates.seen(
      scope,
      this.data.db,
      gates.map((g) => g.quality_gate_id),
      (i) => `quality_gates[${i}].quality_gate_id`,
    );
    return gates;
  }

  async create(principal: Principal, input: PolicyInput): Promise<PolicyRecord> {
    const scope = await this.scopes.withTags(principal);
    scope.assertMayChange(policyProjects(input.project_tags), 'this policy');
    const qualityGates = await this.gatesOf(scope, input);
    const row = await policyStore.insert(this.data.db, {
      name: input.name,
      description: input.description ?? '',
      author: principal.username,
      projectTags: input.project_tags,
      qualityGates,
    });
    return inScope(scope, row);
  }

  async update(principal: Principal, id: string, input: PolicyInput): Promise<PolicyRecord> {
    const scope = await this.scopes.withTags(principal);
    const qualityGates = await this.gatesOf(scope, input);
    const current = (await policyStore.getMany(this.data.db, [id])).get(id);
    if (!current || !scope.sees(policyProjects(current.projectTags))) throw notFound(`Policy ${id}`);
    scope.assertMayChange(policyProjects(current.projectTags), `policy ${id}`);
    scope.assertMayChange(policyProjects(input.project_tags), `policy ${id}`);
    const row = await policyStore.update(this.data.db, id, {
      name: input.name,
      description: input.description ?? '',
      projectTags: input.project_tags,
      qualityGates,
    });
    if (!row) throw notFound(`Policy ${id}`);
    return inScope(scope, row);
  }

  async list(
    principal: Principal,
    q: { page: number; limit: number; author?: string; name?: string; project?: string },
  ) {
    const scope = await this.scopes.withTags(principal);
    const page = scope.everyProject
      ? await policyStore.list(this.data.db, q)
      : pageOf(
          (await policyStore.matching(this.data.db, { ...q, tags: scope.tags }, READ_CAP)).filter((p) =>
            scope.sees(policyProjects(p.projectTags)),
          ),
          q,
        );
    return { items: page.items.map((p) => inScope(scope, p)), total: page.total };
  }

  async delete(principal: Principal, ids: string[]) {
    const scope = await this.scopes.withTags(principal);
    return this.data.transaction(async (trx) =>
      deleteInScope(
        ids,
        await policyStore.getMany(trx, ids),
        (p) => scope.access(policyProjects(p.projectTags), `policy ${p.id}`),
        (allowed) => policyStore.delete(trx, allowed),
      ),
    );
  }
}
