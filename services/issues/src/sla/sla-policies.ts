import { notFound, pageOf, Principal, ServiceData, Trx } from '@bulwark/platform';
import { deleteInScope } from '../bulk-delete';
import { CallerScope, CallerScopes } from '../caller-scope';
import { SlaDays, slaPolicyProjects } from '../domain/sla';
import { slaClockStore } from '../store/sla-clock';
import { SlaPolicyRecord, slaPolicyStore, SlaPolicyWrite } from '../store/sla-policies';

export interface SlaPolicyInput {
  name: string;
  project_tags: string[];
  project_codes: string[];
  days: SlaDays;
  known_exploited_days: number | null;
}

const policyWrite = (input: SlaPolicyInput): SlaPolicyWrite => ({
  name: input.name,
  projectTags: input.project_tags,
  projectCodes: input.project_codes,
  days: input.days,
  knownExploitedDays: input.known_exploited_days,
});

/** At most this many policies are read for one list of a caller limited to some projects. */
const READ_CAP = 10000;

/** The policy as the caller may see it: only its own projects' codes and tags. */
function inScope(scope: CallerScope, p: SlaPolicyRecord): SlaPolicyRecord {
  if (scope.everyProject) return p;
  const visible = scope.visible(slaPolicyProjects(p));
  return { ...p, projectCodes: [...visible.codes], projectTags: [...visible.tags] };
}

/**
 * SLA policies: days to fix open issues by severity, for the projects named, those carrying a tag, or
 * every project. A caller limited to some projects manages only policies naming its own projects, and
 * sees those touching them. Every change resolves the projects' days anew and moves the due dates of
 * the issues whose days changed, in the same transaction.
 */
export class SlaPolicies {
  constructor(
    private readonly data: ServiceData,
    private readonly scopes: CallerScopes,
  ) {}

  private async reapply(trx: Trx): Promise<void> {
    await slaClockStore.applyToIssues(trx, await slaClockStore.resolve(trx, null));
  }

  private async visible(scope: CallerScope, id: string): Promise<SlaPolicyRecord> {
    const policy = (await slaPolicyStore.getMany(this.data.db, [id])).get(id);
    if (!policy || !scope.sees(slaPolicyProjects(policy))) throw notFound(`SLA policy ${id}`);
    return policy;
  }

  async create(principal: Principal, input: SlaPolicyInput): Promise<SlaPolicyRecord> {
    const scope = await this.scopes.withTags(principal);
    scope.assertMayChange(slaPolicyProjects(policyWrite(input)), 'this SLA policy');
    return this.data.transaction(async (trx) => {
      const row = await slaPolicyStore.insert(trx, { ...policyWrite(input), author: principal.username });
      await this.reapply(trx);
      return inScope(scope, row);
    });
  }

  async get(principal: Principal, id: string): Promise<SlaPolicyRecord> {
    const scope = await this.scopes.withTags(principal);
    return inScope(scope, await this.visible(scope, id));
  }

  /** The caller changes a policy only when both the projects it applies to and those it will apply to are its own. */
  async update(principal: Principal, id: string, input: SlaPolicyInput): Promise<SlaPolicyRecord> {
    const scope = await this.scopes.withTags(principal);
    const current = await this.visible(scope, id);
    scope.assertMayChange(slaPolicyProjects(current), `SLA policy ${id}`);
    scope.assertMayChange(slaPolicyProjects(policyWrite(input)), `SLA policy ${id}`);
    return this.data.transaction(async (trx) => {
      const row = await slaPolicyStore.update(trx, id, policyWrite(input));
      if (!row) throw notFound(`SLA policy ${id}`);
      await this.reapply(trx);
      return inScope(scope, row);
    });
  }

  async list(principal: Principal, q: { page: number; limit: number; name?: string }) {
    const scope = await this.scopes.withTags(principal);
    const page = scope.everyProject
      ? await slaPolicyStore.list(this.data.db, q)
      : pageOf(
          (await slaPolicyStore.matching(this.data.db, q, READ_CAP)).filter((p) => scope.sees(slaPolicyProjects(p))),
          q,
        );
    return { items: page.items.map((p) => inScope(scope, p)), total: page.total };
  }

  async delete(principal: Principal, ids: string[]) {
    const scope = await this.scopes.withTags(principal);
    return this.data.transaction(async (trx) => {
      const results = await deleteInScope(
        ids,
        await slaPolicyStore.getMany(trx, ids),
        (p) => scope.access(slaPolicyProjects(p), `SLA policy ${p.id}`),
        (allowed) => slaPolicyStore.delete(trx, allowed),
      );
      if (results.some((r) => r.status === 'deleted')) await this.reapply(trx);
      return results;
    });
  }
}
