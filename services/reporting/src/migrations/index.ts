import type { Migration } from '@bulwark/platform';

export const migrations: Migration[] = [
  {
    name: '0001_reports',
    async up(db) {
      await db.schema.createTable('reports', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('type').notNullable();
        t.text('period').notNullable();
        // Empty with all_projects: every project (the author could see them all).
        t.specificType('project_codes', 'text[]').notNullable();
        t.boolean('all_projects').notNullable();
        t.text('author').notNullable();
        // queued, running, ready, failed.
        t.text('state').notNullable();
        t.smallint('progress').notNullable().defaultTo(0);
        t.text('error');
        t.integer('attempts').notNullable().defaultTo(0);
        t.timestamp('lease_until', { useTz: true });
        t.jsonb('snapshot');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('started_at', { useTz: true });
        t.timestamp('finished_at', { useTz: true });
      });
      await db.raw("create index reports_waiting on reports (created_at) where state in ('queued', 'running')");
      await db.raw('create index reports_recent on reports (created_at desc, id desc)');
      // A format is rendered once, at its first download, then served from here.
      await db.schema.createTable('report_files', (t) => {
        t.uuid('report_id').notNullable().references('reports.id').onDelete('CASCADE');
        t.text('format').notNullable();
        t.binary('body').notNullable();
        t.primary(['report_id', 'format']);
      });
    },
  },
  {
    name: '0002_report_range',
    async up(db) {
      // A custom period's bounds; null for the named periods, which are counted back from created_at.
      await db.schema.alterTable('reports', (t) => {
        t.timestamp('range_from', { useTz: true });
        t.timestamp('range_to', { useTz: true });
      });
    },
  },
];
