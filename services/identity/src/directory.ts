import {
  AppError,
  assertCredentialStaysWith,
  ErrorRecorder,
  invalid,
  Logger,
  markRecorded,
  SecretBox,
  ServiceData,
  FieldProblem,
} from '@bulwark/platform';
import type { IdentityConfig } from './config';
import { DirectoryPerson, LDAP_DEFAULTS, LdapDirectory, LdapFailure, LdapSettings } from './domain/ldap';
import { loginSettingsStore } from './store/login-settings';

export type LdapSettingsPatch = Partial<LdapSettings> & { bind_password?: string };

/** How long a public GET /ldap/allowed answer is reused: the login page must not make every visit a directory bind. */
const ALLOWED_CACHE_MS = 30_000;

/** The same directory failure is recorded in the error log at most this often per process: every login attempt would repeat it. */
const RECORD_EVERY_MS = 60_000;

/**
 * Directory (LDAP) login settings and the directory conversations behind them. The settings live in
 * identity's database (environment variables seed them until the first PUT); the bind password is
 * sealed with the master key and never leaves this class but towards the directory.
 */
export class DirectoryLogins {
  private allowedCache: { key: string; at: number; allowed: boolean } | undefined;
  /** When each failure (stage and message) was last recorded. */
  private readonly lastRecorded = new Map<string, number>();

  constructor(
    private readonly deps: {
      data: ServiceData;
      secrets: SecretBox;
      ldap: LdapDirectory;
      config: IdentityConfig;
      log: Logger;
      errors: ErrorRecorder;
    },
  ) {}

  /** Settings from the environment, used until settings are saved through the API. */
  private seeded(): { settings: LdapSettings; password: string | null } {
    const c = this.deps.config;
    const urls = (c.LDAP_URL ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    return {
      settings: {
        ...LDAP_DEFAULTS,
        enabled: urls.length > 0,
        urls,
        bind_dn: c.LDAP_BIND_DN ?? null,
        user_search_base: c.LDAP_USER_SEARCH_BASE ?? null,
        ...(c.LDAP_USER_FILTER ? { user_filter: c.LDAP_USER_FILTER } : {}),
        group_search_base: c.LDAP_GROUP_SEARCH_BASE ?? null,
      },
      password: c.LDAP_BIND_PASSWORD ?? null,
    };
  }

  private async current(): Promise<{ settings: LdapSettings; password: string | null; updatedAt: string | null }> {
    const stored = await loginSettingsStore.get(this.deps.data.db, 'ldap');
    if (!stored) return { ...this.seeded(), updatedAt: null };
    return {
      settings: { ...LDAP_DEFAULTS, ...(stored.settings as Partial<LdapSettings>) },
      password: stored.secretSealed ? this.deps.secrets.open(stored.secretSealed) : null,
      updatedAt: stored.updatedAt,
    };
  }

  private static missing(settings: LdapSettings, password: string | null): FieldProblem[] {
    const problems: FieldProblem[] = [];
    if (settings.urls.length === 0) problems.push({ field: 'urls', problem: 'is required to enable directory login' });
    if (!settings.bind_dn) problems.push({ field: 'bind_dn', problem: 'is required to enable directory login' });
    if (!password) problems.push({ field: 'bind_password', problem: 'is required to enable directory login' });
    if (!settings.user_search_base)
      problems.push({ field: 'user_search_base', problem: 'is required to enable directory login' });
    return problems;
  }

  private view(c: { settings: LdapSettings; password: string | null; updatedAt: string | null }) {
    return {
      ...c.settings,
      bind_password_set: Boolean(c.password),
      complete: DirectoryLogins.missing(c.settings, c.password).length === 0,
      updated_at: c.updatedAt,
    };
  }

  async getSettings() {
    return this.view(await this.current());
  }

  async updateSettings(patch: LdapSettingsPatch) {
    const { bind_password: newPassword, ...fields } = patch;
    const before = await this.current();
    const settings: LdapSettings = { ...before.settings, ...fields };
    const password = newPassword ?? before.password;
    // The stored bind password goes only to the directories it was stored for.
    if (newPassword === undefined && before.password && fields.urls)
      for (const url of settings.urls) assertCredentialStaysWith(before.settings.urls, url, 'urls');
    if (settings.start_tls && settings.urls.some((u) => u.toLowerCase().startsWith('ldaps:'))) {
      throw invalid('Invalid start_tls: ldaps:// is TLS from the start', [
        { field: 'start_tls', problem: 'cannot be used with ldaps:// urls' },
      ]);
    }
    const missing = DirectoryLogins.missing(settings, password);
    if (settings.enabled && missing.length > 0)
      throw invalid(`Directory login cannot be enabled: ${missing.map((p) => p.field).join(', ')} missing`, missing);
    await this.deps.data.transaction((trx) =>
      loginSettingsStore.put(trx, 'ldap', { ...settings }, password ? this.deps.secrets.seal(password) : null),
    );
    this.deps.log.info('ldap settings changed', { fields: Object.keys(patch), enabled: settings.enabled });
    return this.getSettings();
  }

  async test(username?: string): Promise<{ ok: boolean; stage: string; message: string }> {
    const { settings, password } = await this.current();
    const missing = DirectoryLogins.missing(settings, password);
    // `!password` is among the missing ones; repeated so the type knows.
    if (missing.length > 0 || !password)
      return {
        ok: false,
        stage: 'settings',
        message: `Settings are incomplete: ${missing.map((p) => p.field).join(', ')} missing`,
      };
    try {
      return { ok: true, ...(await this.deps.ldap.test(settings, password, username)) };
    } catch (err) {
      if (err instanceof LdapFailure) return { ok: false, stage: err.stage, message: err.message };
      throw err;
    }
  }

  /** Whether a directory user could log in now: enabled, complete, and the service account binds. */
  async allowed(): Promise<boolean> {
    const { settings, password, updatedAt } = await this.current();
    if (!password || !(await this.configured())) return false;
    const key = updatedAt ?? 'seeded';
    if (this.allowedCache?.key === key && Date.now() - this.allowedCache.at < ALLOWED_CACHE_MS)
      return this.allowedCache.allowed;
    const allowed = await this.deps.ldap.open(settings, password).then(
      async (client) => {
        await client.unbind().catch(() => undefined);
        return true;
      },
      (err: LdapFailure) => {
        this.deps.log.warn('ldap not reachable', { stage: err.stage, message: err.message });
        return false;
      },
    );
    this.allowedCache = { key, at: Date.now(), allowed };
    return allowed;
  }

  /** Enabled with complete settings: directory users can log in (if the server answers). */
  async configured(): Promise<boolean> {
    const { settings, password } = await this.current();
    return settings.enabled && DirectoryLogins.missing(settings, password).length === 0;
  }

  /** A directory login; a refusal is thrown as DirectoryRefusal, an unusable directory as 503. */
  async authenticate(username: string, password: string): Promise<DirectoryPerson> {
    const { settings, password: bindPassword } = await this.current();
    try {
      // Asked only when configured(); settings changed since then leave the directory unusable.
      if (!bindPassword) throw new LdapFailure('settings', 'Settings are incomplete: bind_password is required');
      return await this.deps.ldap.authenticate(settings, bindPassword, username, password);
    } catch (err) {
      if (!(err instanceof LdapFailure)) throw err;
      this.deps.log.warn('directory login failed: directory unusable', { stage: err.stage, message: err.message });
      const key = `${err.stage} ${err.message}`;
      if (Date.now() - (this.lastRecorded.get(key) ?? -Infinity) >= RECORD_EVERY_MS) {
        this.lastRecorded.set(key, Date.now());
        // The failure's message names the stage and host, never the bind password (LdapFailure's own rule).
        await this.deps.errors.recordError({
          code: 'directory.unreachable',
          level: 'error',
          route: 'POST /api/v1/auth/login',
          message: `Directory login failed: the directory cannot be used (stage ${err.stage}): ${err.message}`,
          message_ru: `Вход через каталог не выполнен: каталог недоступен (этап ${err.stage}): ${err.message}`,
          details: { stage: err.stage },
        });
      }
      throw markRecorded(new AppError('unavailable', 'The directory cannot be reached; try again later'));
    }
  }
}
