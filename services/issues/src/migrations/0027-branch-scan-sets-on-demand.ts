import type { Migration } from '@bulwark/platform';

/**
 * A check's base scan keeps its detected issues only once a pull request scan of the check needs
 * them: null until then. Taken at every scan outside a pull request, the set cost a rescan of
 * 100,000 issues an array of 100,000 ids written in its transaction, for checks no pull request uses.
 */
export const branchScanSetsOnDemandMigration: Migration = {
  name: '0027_branch_scan_sets_on_demand',
  async up(db) {
    await db.schema.alterTable('branch_scans', (t) => t.specificType('issue_ids', 'uuid[]').nullable().alter());
  },
};
