import type { Migration } from './database';

/** Tables every service has: the transactional outbox and the inbox of processed messages. */
export const platformMigrations: Migration[] = [
  {
    name: '0000_platform_outbox_inbox',
    async up(db) {
      await db.schema.createTable('bulwark_outbox', (t) => {
        t.bigIncrements('seq').primary();
        t.uuid('id').notNullable().unique();
        t.text('topic').notNullable();
        t.text('key').notNullable();
        t.text('type').notNullable();
        t.jsonb('payload').notNullable();
        t.jsonb('headers').notNullable().defaultTo('{}');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('published_at', { useTz: true });
      });
      await db.raw('create index bulwark_outbox_pending on bulwark_outbox (seq) where published_at is null');
      // One row: which relay instance may publish now. A lease keeps per-key order with several replicas.
      await db.schema.createTable('bulwark_outbox_lease', (t) => {
        t.integer('id').primary();
        t.text('holder');
        t.timestamp('until', { useTz: true });
      });
      await db('bulwark_outbox_lease').insert({ id: 1, holder: null, until: null });
      await db.schema.createTable('bulwark_inbox', (t) => {
        t.text('consumer').notNullable();
        t.uuid('message_id').notNullable();
        t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.primary(['consumer', 'message_id']);
      });
    },
  },
];
