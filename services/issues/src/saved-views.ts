import { conflict, Principal, ServiceData } from '@bulwark/platform';
import { ISSUE_VIEWS_PER_USER } from '@bulwark/contracts';
import { deleteResults } from './bulk-delete';
import { SavedViewRecord, savedViewStore } from './store/saved-views';

/** Saved views of the issue list: a user's own, named, at most ISSUE_VIEWS_PER_USER of them. */
export class SavedViews {
  constructor(private readonly data: ServiceData) {}

  list(principal: Principal): Promise<SavedViewRecord[]> {
    return savedViewStore.list(this.data.db, principal.userId);
  }

  async create(principal: Principal, name: string, query: string): Promise<SavedViewRecord> {
    return this.data.transaction(async (trx) => {
      if ((await savedViewStore.lockAndCount(trx, principal.userId)) >= ISSUE_VIEWS_PER_USER)
        throw conflict(`At most ${ISSUE_VIEWS_PER_USER} saved views per user`, [
          { field: 'name', problem: `you have ${ISSUE_VIEWS_PER_USER} saved views already: delete one first` },
        ]);
      const view = await savedViewStore.add(trx, principal.userId, name, query);
      if (!view)
        throw conflict(`You already have a view named ${name}`, [
          { field: 'name', problem: 'is already used by one of your views' },
        ]);
      return view;
    });
  }

  async delete(principal: Principal, ids: string[]) {
    return deleteResults(ids, await savedViewStore.delete(this.data.db, principal.userId, ids));
  }
}
