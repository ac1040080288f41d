import type { Migration } from '@bulwark/platform';

/**
 * What a pull request's comment compares: the issues its scan detected (on its decoration) and those
 * the latest scan of the check outside any pull request detected (one row per check, replaced by
 * each such scan), both taken right after ingestion.
 */
export const baseBranchScansMigration: Migration = {
  name: '0024_base_branch_scans',
  async up(db) {
    // Null for decorations queued before: they compare with nothing, as their scans were not taken apart.
    await db.schema.alterTable('pull_request_decorations', (t) => t.specificType('issue_ids', 'uuid[]'));
    await db.schema.createTable('branch_scans', (t) => {
      t.text('check_id').primary();
      t.text('scan_id').notNullable();
      t.specificType('issue_ids', 'uuid[]').notNullable();
      t.timestamp('ingested_at', { useTz: true }).notNullable();
    });
  },
};
