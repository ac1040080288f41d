import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Client, escapeFilter, InvalidCredentialsError, NoSuchObjectError, ResultCodeError, type Entry } from 'ldapts';
import { OutboundPolicy, OutboundRefusedError, unreachableMessage } from '@bulwark/platform';

/** The directory settings as stored (the wire names of PUT /ldap/settings), without the bind password. */
export interface LdapSettings {
  enabled: boolean;
  urls: string[];
  start_tls: boolean;
  verify_certificate: boolean;
  ca_certificate: string | null;
  bind_dn: string | null;
  user_search_base: string | null;
  user_filter: string;
  disabled_filter: string | null;
  group_search_base: string | null;
  group_filter: string;
  group_member_attribute: string;
  nested_groups: 'none' | 'walk' | 'in_chain';
  display_name_attribute: string;
  email_attribute: string;
  timeout_seconds: number;
  page_size: number;
}

export const LDAP_DEFAULTS: LdapSettings = {
  enabled: false,
  urls: [],
  start_tls: false,
  verify_certificate: true,
  ca_certificate: null,
  bind_dn: null,
  user_search_base: null,
  user_filter: '(&(objectClass=person)(uid={username}))',
  disabled_filter: null,
  group_search_base: null,
  group_filter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=group))',
  group_member_attribute: 'member',
  nested_groups: 'walk',
  display_name_attribute: 'displayName',
  email_attribute: 'mail',
  timeout_seconds: 10,
  page_size: 500,
};

export type LdapStage = 'settings' | 'connect' | 'tls' | 'bind' | 'search_base' | 'user' | 'done';

/** A step of talking to the directory that failed; `message` is safe to show (no secrets, no internals). */
export class LdapFailure extends Error {
  constructor(
    readonly stage: LdapStage,
    message: string,
  ) {
    super(message);
    this.name = 'LdapFailure';
  }
}

export interface DirectoryGroup {
  dn: string;
  name: string;
}

export interface DirectoryPerson {
  dn: string;
  displayName: string | null;
  email: string | null;
  groups: DirectoryGroup[];
}

/** Why a directory login was refused: a wrong name or password, or a disabled account. */
export class DirectoryRefusal extends Error {
  constructor(readonly reason: 'credentials' | 'disabled') {
    super(reason === 'disabled' ? 'This directory account is disabled' : 'Invalid username or password');
    this.name = 'DirectoryRefusal';
  }
}

/** RFC 4515 escaping of one value put into a filter: the guard against LDAP injection. */
const escapeValue = (value: string) => escapeFilter`${value}`;

const IN_CHAIN = '1.2.840.113556.1.4.1941';
const MAX_NESTING = 10;

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

function firstValue(entry: Entry, attribute: string): string | null {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const raw = key ? entry[key] : undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return null;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** The value of a DN's first RDN: the name of cn=developers,ou=groups,... is "developers". */
function rdnValue(dn: string): string {
  const first = dn.split(/(?<!\\),/)[0] ?? dn;
  return first.slice(first.indexOf('=') + 1).trim();
}

/** DNs compared as directories do: case and spaces around separators do not matter. */
export const normalizeDn = (dn: string) =>
  dn
    .trim()
    .toLowerCase()
    .replace(/\s*([,=+])\s*/g, '$1');

/**
 * One conversation with the directory. Every connection goes to an address the outbound policy
 * allows, resolved before connecting (the name is kept for TLS: SNI and the certificate check).
 */
export class LdapDirectory {
  constructor(private readonly policy: OutboundPolicy) {}

  private tlsOptions(settings: LdapSettings, host: string): ConnectionOptions {
    return {
      rejectUnauthorized: settings.verify_certificate,
      ...(settings.ca_certificate ? { ca: settings.ca_certificate } : {}),
      ...(isIP(host) ? {} : { servername: host }),
      minVersion: 'TLSv1.2',
    };
  }

  /** Connects to the first server that answers, binds as the service account. */
  async open(settings: LdapSettings, bindPassword: string): Promise<Client> {
    if (!settings.bind_dn || settings.urls.length === 0)
      throw new LdapFailure('settings', 'Settings are incomplete: urls and bind_dn are required');
    // The urls are not empty (checked above), so the loop replaces this before it is thrown.
    let last = new LdapFailure('connect', 'No directory server answered');
    for (const text of settings.urls) {
      const url = URL.canParse(text) ? new URL(text) : undefined;
      if (!url || !/^ldaps?:$/i.test(url.protocol))
        throw new LdapFailure('settings', `Not an ldap:// or ldaps:// URL: ${text}`);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const secure = url.protocol.toLowerCase() === 'ldaps:';
      const port = url.port || (secure ? '636' : '389');
      let client: Client | undefined;
      try {
        const [address] = await this.policy.resolve(host);
        const target = address.family === 6 ? `[${address.address}]` : address.address;
        const tlsOptions = this.tlsOptions(settings, host);
        client = new Client({
          url: `${secure ? 'ldaps' : 'ldap'}://${target}:${port}`,
          timeout: settings.timeout_seconds * 1000,
          // Capped, so a list of dead servers cannot hold a request (or the public /ldap/allowed) for minutes.
          connectTimeout: Math.min(settings.timeout_seconds, 10) * 1000,
          // ldapts speaks TLS from the start whenever tlsOptions are given, so only ldaps:// gets them.
          ...(secure ? { tlsOptions } : {}),
        });
        if (!secure && settings.start_tls) {
          await client.startTLS(tlsOptions).catch((err) => {
            throw err instanceof ResultCodeError
              ? new LdapFailure('tls', `TLS failure with ${host}: StartTLS refused (${err.message})`)
              : err;
          });
        }
        await client.bind(settings.bind_dn, bindPassword);
        return client;
      } catch (err) {
        await client?.unbind().catch(() => undefined);
        last = this.classify(err, host);
        // A server that answered and refused is an answer: trying the next one would not change it.
        if (last.stage !== 'connect') throw last;
      }
    }
    throw last;
  }

  private classify(err: unknown, host: string): LdapFailure {
    if (err instanceof LdapFailure) return err;
    if (err instanceof InvalidCredentialsError)
      return new LdapFailure('bind', 'Bind refused: the directory did not accept bind_dn and bind_password');
    if (err instanceof OutboundRefusedError) return new LdapFailure('connect', unreachableMessage(host));
    const e = err as NodeJS.ErrnoException & { library?: string };
    if (
      (e.code && TLS_CODES.has(e.code)) ||
      e.library === 'SSL routines' ||
      /certificate|tls|ssl/i.test(e.message ?? '')
    ) {
      return new LdapFailure('tls', `TLS failure with ${host}: ${e.code ?? e.message}`);
    }
    if (err instanceof ResultCodeError) return new LdapFailure('bind', `Bind refused: ${err.message}`);
    return new LdapFailure('connect', unreachableMessage(host));
  }

  /** The test behind POST /ldap/test: each step in turn, the first failure named. */
  async test(
    settings: LdapSettings,
    bindPassword: string,
    username?: string,
  ): Promise<{ stage: LdapStage; message: string }> {
    const client = await this.open(settings, bindPassword);
    try {
      if (!settings.user_search_base)
        throw new LdapFailure('settings', 'Settings are incomplete: user_search_base is required');
      await this.search(client, settings.user_search_base, {
        scope: 'base',
        filter: '(objectClass=*)',
        attributes: ['1.1'],
      }).catch((err) => {
        if (err instanceof NoSuchObjectError)
          throw new LdapFailure('search_base', `Search base not found: ${settings.user_search_base}`);
        throw err;
      });
      if (username !== undefined) {
        const found = await this.findPerson(client, settings, username);
        if (!found) throw new LdapFailure('user', `The user filter matched nothing for "${username}"`);
      }
      return {
        stage: 'done',
        message:
          username === undefined
            ? 'Connected, bound and found the search base'
            : `Connected, bound and found ${username}`,
      };
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /**
   * A directory login: find the person as the service account, bind as the person with the password
   * given, then as the service account again refuse a disabled account and read the groups.
   */
  async authenticate(
    settings: LdapSettings,
    bindPassword: string,
    username: string,
    password: string,
  ): Promise<DirectoryPerson> {
    // An empty password would make a simple bind anonymous, which "succeeds": never send one.
    if (password === '') throw new DirectoryRefusal('credentials');
    const client = await this.open(settings, bindPassword);
    try {
      const person = await this.findPerson(client, settings, username);
      if (!person) throw new DirectoryRefusal('credentials');
      try {
        await client.bind(person.dn, password);
      } catch (err) {
        if (err instanceof InvalidCredentialsError) throw new DirectoryRefusal('credentials');
        throw err;
      }
      await client.bind(requiredSetting(settings, 'bind_dn'), bindPassword);
      // Checked after the password, so only someone who knows it learns that the account is disabled.
      if (settings.disabled_filter) {
        const disabled = await this.search(client, person.dn, {
          scope: 'base',
          filter: settings.disabled_filter,
          attributes: ['1.1'],
        });
        if (disabled.length > 0) throw new DirectoryRefusal('disabled');
      }
      return {
        dn: person.dn,
        displayName: firstValue(person, settings.display_name_attribute) ?? firstValue(person, 'cn'),
        email: firstValue(person, settings.email_attribute),
        groups: await this.groupsOf(client, settings, person.dn),
      };
    } catch (err) {
      if (err instanceof DirectoryRefusal || err instanceof LdapFailure) throw err;
      throw new LdapFailure('connect', `The directory failed during login: ${(err as Error).message}`);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  private async search(client: Client, base: string, options: Parameters<Client['search']>[1]): Promise<Entry[]> {
    return (await client.search(base, options)).searchEntries;
  }

  /** The one person the user filter finds; none when it finds none or several (an ambiguous filter must not pick one). */
  private async findPerson(client: Client, settings: LdapSettings, username: string): Promise<Entry | undefined> {
    const filter = settings.user_filter.split('{username}').join(escapeValue(username));
    const entries = await this.search(client, requiredSetting(settings, 'user_search_base'), {
      scope: 'sub',
      filter,
      sizeLimit: 2,
      timeLimit: settings.timeout_seconds,
      attributes: [settings.display_name_attribute, settings.email_attribute, 'cn'],
    }).catch((err) => {
      if (err instanceof NoSuchObjectError)
        throw new LdapFailure('search_base', `Search base not found: ${settings.user_search_base}`);
      throw err;
    });
    return entries.length === 1 ? entries[0] : undefined;
  }

  private async groupSearch(
    client: Client,
    settings: LdapSettings,
    base: string,
    memberFilter: string,
  ): Promise<DirectoryGroup[]> {
    const entries = await this.search(client, base, {
      scope: 'sub',
      filter: `(&${settings.group_filter}${memberFilter})`,
      attributes: ['cn'],
      paged: { pageSize: settings.page_size },
      timeLimit: settings.timeout_seconds,
    });
    return entries.map((e) => ({ dn: e.dn, name: firstValue(e, 'cn') ?? rdnValue(e.dn) }));
  }

  /** Direct groups, and with nesting the groups those are in, up to ten levels, each group once. */
  private async groupsOf(client: Client, settings: LdapSettings, dn: string): Promise<DirectoryGroup[]> {
    const base = settings.group_search_base;
    if (!base) return [];
    const attr = settings.group_member_attribute;
    if (settings.nested_groups === 'in_chain')
      return this.groupSearch(client, settings, base, `(${attr}:${IN_CHAIN}:=${escapeValue(dn)})`);
    const found = new Map<string, DirectoryGroup>();
    let frontier = [dn];
    for (let level = 0; level < MAX_NESTING && frontier.length > 0; level++) {
      const members = frontier.map((d) => `(${attr}=${escapeValue(d)})`).join('');
      const groups = await this.groupSearch(client, settings, base, frontier.length === 1 ? members : `(|${members})`);
      frontier = [];
      for (const g of groups) {
        const key = normalizeDn(g.dn);
        if (found.has(key)) continue;
        found.set(key, g);
        frontier.push(g.dn);
      }
      if (settings.nested_groups === 'none') break;
    }
    return [...found.values()];
  }
}

/** A setting a bind or search cannot go without, or the 'settings' failure naming it. */
function requiredSetting(settings: LdapSettings, field: 'bind_dn' | 'user_search_base'): string {
  const value = settings[field];
  if (!value) throw new LdapFailure('settings', `Settings are incomplete: ${field} is required`);
  return value;
}
