import { conflict, notFound, Queryable, ServiceData } from '@bulwark/platform';
import { deleteResults } from './bulk-delete';
import type { DedupRule } from './domain/match-key';
import { DedupRuleRecord, dedupRuleStore } from './store/settings';

export interface DedupRuleInput {
  name: string;
  tool_name?: string | null;
  fields: string[];
  scope?: 'project' | 'layer';
}

const write = (b: DedupRuleInput) => ({
  name: b.name,
  toolName: b.tool_name ?? null,
  fields: b.fields as DedupRule['fields'],
  scope: b.scope ?? 'project',
});

/**
 * Deduplication rules: which fields make two findings of a tool one issue. They apply to the whole
 * organisation, so only a caller of every project changes them (the route table's `organisation` scope).
 */
export class DedupRules {
  constructor(private readonly data: ServiceData) {}

  list(q: { page: number; limit: number; name?: string }) {
    return dedupRuleStore.list(this.data.db, q);
  }

  /** One rule per tool, and one default rule (no tool). */
  private async assertFree(db: Queryable, toolName: string | null, exceptId?: string): Promise<void> {
    if (await dedupRuleStore.ofTool(db, toolName, exceptId))
      throw conflict('A deduplication rule for this tool (or the default rule) exists');
  }

  create(input: DedupRuleInput): Promise<DedupRuleRecord> {
    return this.data.transaction(async (trx) => {
      await this.assertFree(trx, input.tool_name ?? null);
      return dedupRuleStore.insert(trx, write(input));
    });
  }

  update(id: string, input: DedupRuleInput): Promise<DedupRuleRecord> {
    return this.data.transaction(async (trx) => {
      if (!(await dedupRuleStore.get(trx, id))) throw notFound(`Deduplication rule ${id}`);
      await this.assertFree(trx, input.tool_name ?? null, id);
      const row = await dedupRuleStore.update(trx, id, write(input));
      if (!row) throw notFound(`Deduplication rule ${id}`);
      return row;
    });
  }

  async delete(ids: string[]) {
    return deleteResults(ids, await dedupRuleStore.delete(this.data.db, ids));
  }
}
