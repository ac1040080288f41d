import { randomBytes } from 'node:crypto';
import knex from 'knex';

/**
 * Real servers for tests come from the environment (`deploy/local/infra.sh env` prints it). Without
 * them a suite is skipped with a message saying so, except in CI, where a missing or unreachable
 * server fails the suite: CI must never pass by skipping.
 */
export interface Infra {
  pgUrl?: string;
  redisUrl?: string;
  kafkaBrokers?: string[];
  /** Folders with the real scanner binaries (`deploy/local/scanners.sh env`). */
  scannerPath?: string;
  /** The test directory (slapd) that `deploy/local/infra.sh` starts. */
  ldap?: LdapServer;
  /** The Redmine task tracker that `deploy/local/infra.sh` starts. */
  redmine?: RedmineServer;
  /** The Gitea that `deploy/local/gitea.sh` builds and starts. */
  gitea?: GiteaServer;
}

/** The Gitea of `deploy/local/gitea.sh`: its address and an access token of its admin (all scopes). */
export interface GiteaServer {
  url: string;
  token: string;
}

function giteaServer(e: NodeJS.ProcessEnv): GiteaServer | undefined {
  if (!e.BULWARK_TEST_GITEA_URL || !e.BULWARK_TEST_GITEA_TOKEN) return undefined;
  return { url: e.BULWARK_TEST_GITEA_URL, token: e.BULWARK_TEST_GITEA_TOKEN };
}

/** The Redmine of `deploy/local/infra.sh`: REST API on, an admin API key, a seeded project. */
export interface RedmineServer {
  url: string;
  apiKey: string;
  project: string;
}

function redmineServer(e: NodeJS.ProcessEnv): RedmineServer | undefined {
  if (!e.BULWARK_TEST_REDMINE_URL || !e.BULWARK_TEST_REDMINE_API_KEY) return undefined;
  return {
    url: e.BULWARK_TEST_REDMINE_URL,
    apiKey: e.BULWARK_TEST_REDMINE_API_KEY,
    project: e.BULWARK_TEST_REDMINE_PROJECT ?? 'bulwark-test',
  };
}

/** The slapd of `deploy/local/infra.sh`: its people all share `userPassword`. */
export interface LdapServer {
  url: string;
  ldapsUrl: string;
  caFile: string;
  base: string;
  bindDn: string;
  bindPassword: string;
  userPassword: string;
}

function ldapServer(e: NodeJS.ProcessEnv): LdapServer | undefined {
  if (!e.BULWARK_TEST_LDAP_URL) return undefined;
  return {
    url: e.BULWARK_TEST_LDAP_URL,
    ldapsUrl: e.BULWARK_TEST_LDAPS_URL ?? '',
    caFile: e.BULWARK_TEST_LDAP_CA_FILE ?? '',
    base: e.BULWARK_TEST_LDAP_BASE ?? '',
    bindDn: e.BULWARK_TEST_LDAP_BIND_DN ?? '',
    bindPassword: e.BULWARK_TEST_LDAP_BIND_PASSWORD ?? '',
    userPassword: e.BULWARK_TEST_LDAP_USER_PASSWORD ?? '',
  };
}

export function infra(): Infra {
  return {
    pgUrl: process.env.BULWARK_TEST_PG_URL || undefined,
    redisUrl: process.env.BULWARK_TEST_REDIS_URL || undefined,
    kafkaBrokers: process.env.BULWARK_TEST_KAFKA_BROKERS
      ? process.env.BULWARK_TEST_KAFKA_BROKERS.split(',')
      : undefined,
    scannerPath: process.env.SCANNER_PATH || undefined,
    ldap: ldapServer(process.env),
    redmine: redmineServer(process.env),
    gitea: giteaServer(process.env),
  };
}

export const inCI = () => process.env.CI === 'true' || process.env.CI === '1';

export type InfraNeed = 'postgres' | 'redis' | 'kafka' | 'scanners' | 'ldap' | 'redmine' | 'gitea';

const VARS: Record<InfraNeed, keyof Infra> = {
  postgres: 'pgUrl',
  redis: 'redisUrl',
  kafka: 'kafkaBrokers',
  scanners: 'scannerPath',
  ldap: 'ldap',
  redmine: 'redmine',
  gitea: 'gitea',
};
const ENV_NAMES: Record<InfraNeed, string> = {
  postgres: 'BULWARK_TEST_PG_URL',
  redis: 'BULWARK_TEST_REDIS_URL',
  kafka: 'BULWARK_TEST_KAFKA_BROKERS',
  scanners: 'SCANNER_PATH',
  ldap: 'BULWARK_TEST_LDAP_URL',
  redmine: 'BULWARK_TEST_REDMINE_URL',
  gitea: 'BULWARK_TEST_GITEA_URL',
};
const HOW: Record<InfraNeed, string> = {
  postgres: 'bash deploy/local/infra.sh start',
  redis: 'bash deploy/local/infra.sh start',
  kafka: 'bash deploy/local/infra.sh start',
  scanners: 'bash deploy/local/scanners.sh install',
  ldap: 'bash deploy/local/infra.sh start slapd',
  redmine: 'bash deploy/local/infra.sh start redmine',
  gitea: 'bash deploy/local/gitea.sh start',
};

/** Call in a `before` hook: skips the suite (locally) or fails it (CI) when a needed server is not configured. */
export function requireInfra(ctx: Mocha.Context, ...needs: InfraNeed[]): Required<Infra> {
  const i = infra();
  const missing = needs.filter((n) => !i[VARS[n]]);
  if (missing.length > 0) {
    const message = `needs ${missing.map((m) => `${m} (${ENV_NAMES[m]})`).join(', ')}: ${[...new Set(missing.map((m) => HOW[m]))].map((h) => `"${h}"`).join(' and ')}`;
    if (inCI()) throw new Error(`CI configured no ${message}`);
    console.log(`      [left out] ${ctx.test?.parent?.fullTitle() ?? 'suite'}: ${message}`);
    ctx.skip();
  }
  return i as Required<Infra>;
}

export const uniqueSuffix = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/** A fresh database on the real PostgreSQL server; `drop` removes it. */
export async function createTestDatabase(
  adminUrl: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${uniqueSuffix()}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('create database ??', [name]);
  } finally {
    await admin.destroy();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      try {
        await a.raw('drop database if exists ?? with (force)', [name]);
      } finally {
        await a.destroy();
      }
    },
  };
}
