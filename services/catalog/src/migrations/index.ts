import type { Migration } from '@bulwark/platform';

export const migrations: Migration[] = [
  {
    name: '0001_projects_fields_sources_tools_layers',
    async up(db) {
      await db.schema.createTable('fields', (t) => {
        t.increments('id').primary();
        t.text('name').notNullable();
        t.text('type').notNullable();
        t.boolean('required').notNullable().defaultTo(false);
        t.text('description').notNullable().defaultTo('');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create unique index fields_name_unique on fields (lower(name))');
      await db.schema.createTable('projects', (t) => {
        t.text('code').primary();
        t.text('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.jsonb('tags').notNullable().defaultTo('[]');
        t.timestamp('archived_at', { useTz: true });
        t.timestamp('deleted_at', { useTz: true });
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      // Codes stay unique in any case, deleted projects included: a code is never reused.
      await db.raw('create unique index projects_code_unique on projects (lower(code))');
      await db.schema.createTable('project_field_values', (t) => {
        t.text('project_code').notNullable().references('projects.code').onDelete('CASCADE');
        t.integer('field_id').notNullable().references('fields.id').onDelete('CASCADE');
        t.text('value').notNullable();
        t.primary(['project_code', 'field_id']);
      });
      await db.schema.createTable('sources', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.integer('source_type_id').notNullable();
        t.text('url').notNullable();
        t.text('branch_name');
        t.text('auth_method').notNullable();
        t.text('login');
        // Sealed with the master key (SecretBox): never stored or returned in clear.
        t.text('password_sealed');
        t.text('ssh_key_sealed');
        t.text('access_type').notNullable().defaultTo('global');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('tools', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.integer('type_id').notNullable();
        t.text('version').notNullable();
        t.jsonb('settings').notNullable().defaultTo('{}');
        t.text('api_token_sealed');
        t.text('access_type').notNullable().defaultTo('global');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      for (const kind of ['source', 'tool']) {
        await db.schema.createTable(`${kind}_projects`, (t) => {
          t.uuid(`${kind}_id`).notNullable().references(`${kind}s.id`).onDelete('CASCADE');
          t.text('project_code').notNullable().references('projects.code');
          t.primary([`${kind}_id`, 'project_code']);
        });
        await db.raw(`create index ${kind}_projects_code on ${kind}_projects (project_code)`);
      }
      await db.schema.createTable('layers', (t) => {
        t.uuid('id').primary();
        t.text('project_code').notNullable().references('projects.code');
        t.text('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.integer('layer_type_id').notNullable();
        t.boolean('is_template').notNullable().defaultTo(false);
        t.uuid('template_id');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create index layers_project on layers (project_code, name)');
    },
  },
  {
    name: '0002_project_criticality',
    async up(db) {
      // A default and not null: existing projects are medium without a rewrite (PostgreSQL 11+).
      await db.schema.alterTable('projects', (t) => t.text('criticality').notNullable().defaultTo('medium'));
    },
  },
  {
    name: '0003_source_decorations',
    async up(db) {
      // One row per source whose repository's pull requests get the gate verdict (README "Pull request decoration").
      await db.schema.createTable('source_decorations', (t) => {
        t.uuid('source_id').primary().references('sources.id').onDelete('CASCADE');
        t.boolean('enabled').notNullable();
        t.text('platform').notNullable();
        t.text('api_url').notNullable();
        // Sealed with the master key (SecretBox): never stored or returned in clear.
        t.text('token_sealed').notNullable();
        t.text('review_min_severity').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
  },
];
