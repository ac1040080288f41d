import type { Migration } from '@bulwark/platform';

export const migrations: Migration[] = [
  {
    name: '0001_users_roles_tokens',
    async up(db) {
      await db.schema.createTable('roles', (t) => {
        t.text('code').primary();
        t.text('name').notNullable();
        t.jsonb('permissions').notNullable().defaultTo('{}');
        t.text('description').notNullable().defaultTo('');
        t.jsonb('domain_group').notNullable().defaultTo('[]');
        t.jsonb('system_scopes').notNullable().defaultTo('[]');
        t.boolean('builtin').notNullable().defaultTo(false);
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('users', (t) => {
        t.uuid('id').primary();
        t.text('username').notNullable();
        t.text('password_hash');
        t.text('display_name').notNullable().defaultTo('');
        t.text('email');
        t.boolean('need_password_change').notNullable().defaultTo(false);
        t.boolean('active_directory').notNullable().defaultTo(false);
        // Login JWTs issued before this moment are refused (password change, deletion).
        t.timestamp('sessions_valid_after', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('deleted_at', { useTz: true });
      });
      await db.raw('create unique index users_username_unique on users (lower(username))');
      await db.schema.createTable('user_roles', (t) => {
        t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
        t.text('role_code').notNullable().references('roles.code').onDelete('CASCADE');
        t.primary(['user_id', 'role_code']);
      });
      await db.schema.createTable('api_tokens', (t) => {
        t.uuid('id').primary();
        t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
        t.text('name').notNullable();
        t.text('token_hash').notNullable().unique();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('last_used_at', { useTz: true });
        t.timestamp('revoked_at', { useTz: true });
      });
      await db.raw('create index api_tokens_user on api_tokens (user_id, created_at)');
    },
  },
  {
    name: '0002_login_settings',
    async up(db) {
      // One row per login method ('ldap', later 'sso'): its settings, and its secret sealed apart.
      await db.schema.createTable('login_settings', (t) => {
        t.text('kind').primary();
        t.jsonb('settings').notNullable().defaultTo('{}');
        t.text('secret_sealed');
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
  },
  {
    name: '0003_sso_pending',
    async up(db) {
      // A single sign-on on its way: the state sent to the provider, with the nonce and PKCE verifier
      // that check the way back. A row is taken (deleted) by its callback, so each state works once.
      await db.schema.createTable('sso_pending', (t) => {
        t.text('state').primary();
        t.text('nonce').notNullable();
        t.text('code_verifier').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
  },
  {
    name: '0004_user_groups',
    async up(db) {
      await db.schema.createTable('user_groups', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        // As given, for the API; matching uses the lower-case copy in project_tags_lower.
        t.jsonb('project_tags').notNullable().defaultTo('[]');
        t.specificType('project_tags_lower', 'text[]').notNullable().defaultTo('{}');
        t.jsonb('project_codes').notNullable().defaultTo('[]');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create unique index user_groups_name_unique on user_groups (lower(name))');
      await db.schema.createTable('user_group_users', (t) => {
        t.uuid('group_id').notNullable().references('user_groups.id').onDelete('CASCADE');
        t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
        t.primary(['group_id', 'user_id']);
      });
      await db.raw('create index user_group_users_user on user_group_users (user_id)');
      await db.schema.createTable('user_group_roles', (t) => {
        t.uuid('group_id').notNullable().references('user_groups.id').onDelete('CASCADE');
        t.text('role_code').notNullable().references('roles.code').onDelete('CASCADE');
        t.primary(['group_id', 'role_code']);
      });
      // A group's directory members: `entry` as given, `key` what it is compared by ("dn:" and the
      // normalized DN for an entry with "=", else "name:" and the lower-case name).
      await db.schema.createTable('user_group_directory', (t) => {
        t.uuid('group_id').notNullable().references('user_groups.id').onDelete('CASCADE');
        t.integer('position').notNullable();
        t.text('entry').notNullable();
        t.text('key').notNullable();
        t.primary(['group_id', 'position']);
      });
      await db.raw('create index user_group_directory_key on user_group_directory (key)');
      // The directory groups (LDAP) or group-claim values (OIDC) a directory or single sign-on user
      // was in at their last login, keyed as above: what user_group_directory is matched against.
      await db.schema.createTable('user_directory_groups', (t) => {
        t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
        t.text('key').notNullable();
        t.primary(['user_id', 'key']);
      });
      // Identity's copy of the catalog's project tags (lower case), kept from the catalog's project
      // events: it turns a group's project tags into project codes when a caller is authenticated.
      await db.schema.createTable('project_tags', (t) => {
        t.text('code').primary();
        t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
      });
    },
  },
  {
    name: '0005_license',
    async up(db) {
      // This installation's id, made once: licenses are bound to it.
      await db.schema.createTable('installation', (t) => {
        t.integer('id').primary();
        t.uuid('installation_id').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw(
        'insert into installation (id, installation_id) values (1, gen_random_uuid()) on conflict do nothing',
      );
      // The installed license (one row): its text as the vendor signed it, the document read from it,
      // and which expiry notices were sent for it (a new license starts over).
      await db.schema.createTable('license', (t) => {
        t.integer('id').primary();
        t.text('text').notNullable();
        t.jsonb('document').notNullable();
        t.text('installed_by').notNullable();
        t.timestamp('installed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        // The fewest days left of an expiring notice sent; null: none yet.
        t.integer('expiring_notice_days');
        t.boolean('expired_notice_sent').notNullable().defaultTo(false);
      });
    },
  },
  {
    name: '0006_revoked_sessions',
    async up(db) {
      // Login tokens ended by a sign-out, by their jti, until the token would have expired anyway
      // (login tokens are signed, not stored: this list is what refuses one before its expiry).
      await db.schema.createTable('revoked_sessions', (t) => {
        t.uuid('jti').primary();
        t.timestamp('expires_at', { useTz: true }).notNullable().index();
      });
    },
  },
];
