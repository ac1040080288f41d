import type { Migration } from '@bulwark/platform';

export const migrations: Migration[] = [
  {
    name: '0001_notifications',
    async up(db) {
      await db.schema.createTable('notifiers', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.integer('type_id').notNullable();
        t.text('url').notNullable();
        t.integer('rate_limit').notNullable();
        t.integer('timeout_seconds').notNullable();
        t.text('auth_header_name');
        // Sealed with the master key (SecretBox): never stored or returned in clear.
        t.text('auth_header_value_sealed');
        // Empty: every notifiable event type.
        t.specificType('events', 'text[]').notNullable();
        // With all_projects: every project; otherwise these.
        t.specificType('project_codes', 'text[]').notNullable();
        t.boolean('all_projects').notNullable();
        t.boolean('active').notNullable();
        t.text('author').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      // The events log; the id is the bus event's, so a redelivered event is recorded once.
      await db.schema.createTable('security_events', (t) => {
        t.uuid('id').primary();
        t.text('type').notNullable();
        t.text('project_code');
        t.text('message').notNullable();
        t.text('message_ru').notNullable();
        t.jsonb('data').notNullable();
        t.timestamp('occurred_at', { useTz: true }).notNullable();
      });
      await db.raw('create index security_events_recent on security_events (occurred_at desc, id desc)');
      await db.raw('create index security_events_project on security_events (project_code, occurred_at desc)');
      await db.schema.createTable('deliveries', (t) => {
        t.uuid('id').primary();
        t.uuid('notifier_id').notNullable().references('notifiers.id').onDelete('CASCADE');
        t.uuid('event_id').notNullable().references('security_events.id').onDelete('CASCADE');
        // pending, delivered, failed.
        t.text('state').notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.timestamp('next_attempt_at', { useTz: true }).notNullable();
        t.integer('last_status');
        t.text('last_error');
        t.timestamp('delivered_at', { useTz: true });
        t.unique(['notifier_id', 'event_id']);
      });
      await db.raw("create index deliveries_due on deliveries (next_attempt_at) where state = 'pending'");
    },
  },
  {
    name: '0002_webhook_signing',
    async up(db) {
      // Sealed with the master key, like the token.
      await db.schema.alterTable('notifiers', (t) => t.text('signing_secret_sealed'));
    },
  },
  {
    name: '0003_signing_secret_rotation',
    async up(db) {
      // A replaced secret keeps signing (a second signature) until it expires, so receivers can switch over.
      await db.schema.alterTable('notifiers', (t) => {
        t.text('previous_signing_secret_sealed');
        t.timestamp('previous_signing_secret_expires_at', { useTz: true });
      });
    },
  },
  {
    name: '0004_error_log',
    async up(db) {
      // The error log of every service; the id is the bus event's, so a redelivered record is kept once.
      await db.schema.createTable('error_log', (t) => {
        t.uuid('id').primary();
        t.timestamp('occurred_at', { useTz: true }).notNullable();
        t.text('service').notNullable();
        t.text('level').notNullable();
        t.text('code').notNullable();
        t.text('message').notNullable();
        t.text('message_ru').notNullable();
        t.text('subject');
        t.text('route');
        t.text('request_id');
        t.jsonb('details').notNullable();
      });
      // Newest first, paged and streamed by keyset; retention deletes from the old end.
      await db.raw('create index error_log_recent on error_log (occurred_at desc, id desc)');
      await db.raw('create index error_log_service on error_log (service, occurred_at desc)');
      await db.raw('create index error_log_code on error_log (code, occurred_at desc)');
    },
  },
  {
    name: '0005_payload_format',
    async up(db) {
      await db.schema.alterTable('notifiers', (t) => t.text('payload_format').notNullable().defaultTo('json'));
    },
  },
];
