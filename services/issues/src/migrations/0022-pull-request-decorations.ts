import type { Migration } from '@bulwark/platform';
import { retryQueueColumns } from './retry-queue-columns';

/**
 * Pull request decorations waiting to be delivered: one per scan uploaded with a pull request,
 * written by its ingestion in the transaction that evaluates the gate (an outbox), delivered later
 * outside any transaction and retried with backoff until the platform takes it.
 */
export const pullRequestDecorationsMigration: Migration = {
  name: '0022_pull_request_decorations',
  async up(db) {
    await db.schema.createTable('pull_request_decorations', (t) => {
      t.bigIncrements('id');
      t.text('scan_id').notNullable().unique();
      t.text('check_id').notNullable();
      t.text('project_code').notNullable();
      t.text('source_id').notNullable();
      t.integer('pr_number').notNullable();
      t.text('head_sha');
      t.text('base_branch');
      // The gate's verdict as evaluated at ingestion; null when the layer has no gate.
      t.jsonb('verdict');
      retryQueueColumns(t, db);
    });
    await db.raw(
      'create index pull_request_decorations_due on pull_request_decorations (next_at) where done_at is null',
    );
    await db.raw('create index pull_request_decorations_pr on pull_request_decorations (source_id, pr_number, id)');
  },
};
