import { conflict, invalid, ServiceData } from '@bulwark/platform';
import { deleteResults } from './bulk-delete';
import { statusStore } from './store/settings';

/**
 * Issue statuses and the transitions allowed between them. They apply to the whole organisation, so
 * only a caller of every project changes the transitions (the route table's `organisation` scope).
 */
export class Statuses {
  constructor(private readonly data: ServiceData) {}

  list(q: { ids?: number[]; name?: string; invert?: boolean }) {
    return statusStore.list(this.data.db, q);
  }

  transitions(from?: number[]) {
    return statusStore.transitions(this.data.db, from);
  }

  async addTransition(from: number, to: number) {
    return this.data.transaction(async (trx) => {
      const known = new Set((await statusStore.list(trx)).map((s) => s.id));
      for (const [field, v] of [
        ['from_status_id', from],
        ['to_status_id', to],
      ] as const) {
        if (!known.has(v)) throw invalid(`Unknown ${field}`, [{ field, problem: 'is not a known status id' }]);
      }
      if (from === to)
        throw invalid('A transition needs two statuses', [
          { field: 'to_status_id', problem: 'must differ from from_status_id' },
        ]);
      const created = await statusStore.addTransition(trx, from, to);
      if (!created) throw conflict(`The transition ${from} -> ${to} exists`);
      return created;
    });
  }

  async deleteTransitions(ids: string[]) {
    return deleteResults(ids, await statusStore.deleteTransitions(this.data.db, ids));
  }
}
