import { randomUUID } from 'node:crypto';
import type { WebhookPayloadFormat } from '@bulwark/contracts';
import {
  assertCredentialStaysWith,
  assertMayChangeProjectSet,
  bulkRefusal,
  Db,
  invalid,
  isUuid,
  notFound,
  Principal,
  projectSet,
  ProjectSet,
  projectSetAccess,
  requestedProjects,
  SecretBox,
  touchesProjectSet,
  visibleProjectSet,
} from '@bulwark/platform';
import { previousSecretUntil } from './domain/signatures';
import { DeliveryStats, NotifierRecord, notifierStore, NotifierWrite } from './store/notifiers';
import { WebhookClient, WebhookResult, WebhookTarget } from './webhook';

export interface WebhookSettings {
  url: string;
  rate_limit: number;
  auth_header_name?: string;
  auth_header_value?: string;
  timeout_seconds: number;
  signing_secret?: string;
  payload_format: WebhookPayloadFormat;
}

export interface NotifierBody {
  name: string;
  type_id: number;
  settings: WebhookSettings;
  events: string[];
  project_codes: string[];
  active: boolean;
}

/** A notifier as its views show it: with how its deliveries stand. */
export interface NotifierWithDeliveries {
  notifier: NotifierRecord;
  deliveries: DeliveryStats;
}

/** The outcome of one id of a bulk deletion. */
export interface NotifierDeletion {
  id: string;
  status: 'deleted' | 'not_found' | 'forbidden';
  message?: string;
}

const NO_DELIVERIES: DeliveryStats = { pending: 0, delivered: 0, failed: 0, lastError: null };

/** Where and how a saved notifier is called, its secrets opened. */
export function webhookTarget(n: NotifierRecord, secrets: SecretBox): WebhookTarget {
  const open = (sealed: string | null) => (sealed ? secrets.open(sealed) : null);
  const signing = [open(n.signingSecretSealed), previousSecretUntil(n) ? open(n.previousSigningSecretSealed) : null];
  return {
    url: n.url,
    timeoutSeconds: n.timeoutSeconds,
    authHeaderName: n.authHeaderName,
    authHeaderValue: open(n.authHeaderValueSealed),
    signingSecrets: signing.filter((x): x is string => x !== null),
    payloadFormat: n.payloadFormat,
  };
}

/** The test event a notifier gets from the test endpoints. */
const testBody = (by: string) => ({
  id: randomUUID(),
  type: 'notifier.test',
  occurred_at: new Date().toISOString(),
  project_code: null,
  message: `Test event sent by ${by}`,
  message_ru: `Проверочное событие от ${by}`,
  data: {},
});

/** The projects a notifier gets the events of: every project, or the listed ones. */
const projectSetOf = (n: Pick<NotifierRecord, 'allProjects' | 'projectCodes'>): ProjectSet =>
  projectSet({ every: n.allProjects, codes: n.projectCodes });

/** A notifier as the caller may see it: of one shared with other projects, only its own codes. */
const seenBy = (p: Principal, n: NotifierRecord): NotifierRecord => ({
  ...n,
  projectCodes: [...visibleProjectSet(p, projectSetOf(n)).codes],
});

/**
 * Webhook notifiers on behalf of a caller, by platform's project-set rule: a caller limited to some
 * projects sees the notifiers of every project and those sharing one of its projects, with only its
 * own codes (others: 404), and creates, changes, tests or deletes only those wholly within its
 * projects (403).
 */
export class Notifiers {
  constructor(
    private readonly deps: { db: Db; secrets: SecretBox; webhooks: WebhookClient; secretRotationHours: number },
  ) {}

  private scope(principal: Principal, codes: string[]): Pick<NotifierWrite, 'allProjects' | 'projectCodes'> {
    const { allProjects, projectCodes, outside } = requestedProjects(principal, codes);
    if (outside.length)
      throw invalid(`Unknown project ${outside.join(', ')}`, [
        { field: 'project_codes', problem: `has no project ${outside.join(', ')} that you can see` },
      ]);
    return { allProjects, projectCodes };
  }

  private input(principal: Principal, body: NotifierBody, current?: NotifierRecord): NotifierWrite {
    // The contract's validation has refused a token without its header.
    const s = body.settings;
    // A token left out of an update is kept, unless the header it went with is dropped; kept, it goes
    // only to the scheme, host and port it was stored for.
    const sealed = s.auth_header_value
      ? this.deps.secrets.seal(s.auth_header_value)
      : s.auth_header_name
        ? (current?.authHeaderValueSealed ?? null)
        : null;
    if (current?.authHeaderValueSealed && sealed === current.authHeaderValueSealed)
      assertCredentialStaysWith(current.url, s.url, 'settings.url');
    return {
      name: body.name,
      typeId: body.type_id,
      url: s.url,
      rateLimit: s.rate_limit,
      timeoutSeconds: s.timeout_seconds,
      payloadFormat: s.payload_format,
      authHeaderName: s.auth_header_name ?? null,
      authHeaderValueSealed: sealed,
      ...this.signing(s.signing_secret, current),
      events: [...new Set(body.events)],
      active: body.active,
      ...this.scope(principal, body.project_codes),
    };
  }

  /**
   * A new signing secret replaces the current one, which keeps signing beside it for the rotation
   * window; a secret left out of an update, or given again unchanged, keeps what is there.
   */
  private signing(
    secret: string | undefined,
    current?: NotifierRecord,
  ): Pick<NotifierWrite, 'signingSecretSealed' | 'previousSigningSecretSealed' | 'previousSigningSecretExpiresAt'> {
    const kept = {
      signingSecretSealed: current?.signingSecretSealed ?? null,
      previousSigningSecretSealed: current?.previousSigningSecretSealed ?? null,
      previousSigningSecretExpiresAt: current?.previousSigningSecretExpiresAt ?? null,
    };
    if (!secret) return kept;
    const replaced = kept.signingSecretSealed;
    if (replaced && this.deps.secrets.open(replaced) === secret) return kept;
    const rotating = replaced !== null && this.deps.secretRotationHours > 0;
    return {
      signingSecretSealed: this.deps.secrets.seal(secret),
      previousSigningSecretSealed: rotating ? replaced : null,
      previousSigningSecretExpiresAt: rotating
        ? new Date(Date.now() + this.deps.secretRotationHours * 3_600_000).toISOString()
        : null,
    };
  }

  private async withDeliveries(n: NotifierRecord): Promise<NotifierWithDeliveries> {
    const stats = await notifierStore.deliveryStats(this.deps.db, [n.id]);
    return { notifier: n, deliveries: stats.get(n.id) ?? NO_DELIVERIES };
  }

  /** The notifier a write asks for, refused (403) when its projects are not all the caller's. */
  private changeTo(principal: Principal, body: NotifierBody, current?: NotifierRecord): NotifierWrite {
    const write = this.input(principal, body, current);
    assertMayChangeProjectSet(principal, projectSetOf(write), 'a notifier of these projects');
    return write;
  }

  async create(principal: Principal, body: NotifierBody): Promise<NotifierWithDeliveries> {
    const write = this.changeTo(principal, body);
    return this.withDeliveries(await notifierStore.insert(this.deps.db, randomUUID(), principal.username, write));
  }

  /** A notifier touching the caller's projects, whole (404 for the others, as for one that does not exist). */
  private async visible(principal: Principal, id: string): Promise<NotifierRecord> {
    const n = await notifierStore.get(this.deps.db, id);
    if (!n || !touchesProjectSet(principal, projectSetOf(n))) throw notFound(`Notifier ${id}`);
    return n;
  }

  /** A notifier the caller may change, test or delete: all its projects within the caller's (403 otherwise). */
  private async changeable(principal: Principal, id: string): Promise<NotifierRecord> {
    const n = await this.visible(principal, id);
    assertMayChangeProjectSet(principal, projectSetOf(n), `notifier ${id}`);
    return n;
  }

  async show(principal: Principal, id: string): Promise<NotifierWithDeliveries> {
    return this.withDeliveries(seenBy(principal, await this.visible(principal, id)));
  }

  async list(
    principal: Principal,
    q: { page: number; limit: number; name?: string },
  ): Promise<{ items: NotifierWithDeliveries[]; total: number }> {
    const page = await notifierStore.list(this.deps.db, principal.projects, q);
    const stats = await notifierStore.deliveryStats(
      this.deps.db,
      page.items.map((n) => n.id),
    );
    return {
      items: page.items.map((n) => ({ notifier: seenBy(principal, n), deliveries: stats.get(n.id) ?? NO_DELIVERIES })),
      total: page.total,
    };
  }

  /** Both the notifier as it is and as the body makes it must lie within the caller's projects. */
  async update(principal: Principal, id: string, body: NotifierBody): Promise<NotifierWithDeliveries> {
    const current = await this.changeable(principal, id);
    await notifierStore.update(this.deps.db, id, this.changeTo(principal, body, current));
    return this.show(principal, id);
  }

  async delete(principal: Principal, ids: string[]): Promise<NotifierDeletion[]> {
    const found = await notifierStore.getMany(this.deps.db, ids.filter(isUuid));
    const outcome = (id: string): NotifierDeletion => {
      const n = found.get(id);
      const access = n && projectSetAccess(principal, projectSetOf(n), `notifier ${id}`);
      return bulkRefusal(id, access) ?? { id, status: 'deleted' };
    };
    const results = ids.map(outcome);
    const allowed = results.filter((r) => r.status === 'deleted').map((r) => r.id);
    const deleted = await notifierStore.deleteMany(this.deps.db, allowed);
    return results.map((r) =>
      r.status === 'deleted' && !deleted.includes(r.id) ? { id: r.id, status: 'not_found' } : r,
    );
  }

  async test(principal: Principal, id: string): Promise<WebhookResult> {
    const n = await this.changeable(principal, id);
    const body = testBody(principal.username);
    return this.deps.webhooks.call(webhookTarget(n, this.deps.secrets), body, body.id);
  }

  /** Settings not saved yet touch no project: any holder of notifications.notifiers x may try them. */
  async testSettings(principal: Principal, s: WebhookSettings): Promise<WebhookResult> {
    const body = testBody(principal.username);
    return this.deps.webhooks.call(
      {
        url: s.url,
        timeoutSeconds: s.timeout_seconds,
        authHeaderName: s.auth_header_name ?? null,
        authHeaderValue: s.auth_header_value ?? null,
        signingSecrets: s.signing_secret ? [s.signing_secret] : [],
        payloadFormat: s.payload_format,
      },
      body,
      body.id,
    );
  }
}
