import { randomUUID } from 'node:crypto';
import type { WebhookPayloadFormat } from '@bulwark/contracts';
import {
  assertCredentialStaysWith,
  Db,
  invalid,
  notFound,
  Principal,
  requestedProjects,
  SecretBox,
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

/** Webhook notifiers on behalf of a caller: one manages notifiers whose projects are all its own. */
export class Notifiers {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly webhooks: WebhookClient,
    private readonly secretRotationHours: number,
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
    const s = body.settings;
    if (s.auth_header_value && !s.auth_header_name)
      throw invalid('A token needs its header', [
        { field: 'settings.auth_header_name', problem: 'is required with settings.auth_header_value' },
      ]);
    // A token left out of an update is kept, unless the header it went with is dropped; kept, it goes
    // only to the scheme, host and port it was stored for.
    const sealed = s.auth_header_value
      ? this.secrets.seal(s.auth_header_value)
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
    if (replaced && this.secrets.open(replaced) === secret) return kept;
    const rotating = replaced !== null && this.secretRotationHours > 0;
    return {
      signingSecretSealed: this.secrets.seal(secret),
      previousSigningSecretSealed: rotating ? replaced : null,
      previousSigningSecretExpiresAt: rotating
        ? new Date(Date.now() + this.secretRotationHours * 3_600_000).toISOString()
        : null,
    };
  }

  private async withDeliveries(n: NotifierRecord): Promise<NotifierWithDeliveries> {
    const stats = await notifierStore.deliveryStats(this.db, [n.id]);
    return { notifier: n, deliveries: stats.get(n.id) ?? NO_DELIVERIES };
  }

  async create(principal: Principal, body: NotifierBody): Promise<NotifierWithDeliveries> {
    return this.withDeliveries(
      await notifierStore.insert(this.db, randomUUID(), principal.username, this.input(principal, body)),
    );
  }

  async get(principal: Principal, id: string): Promise<NotifierRecord> {
    const n = await notifierStore.get(this.db, id, principal.projects);
    if (!n) throw notFound(`Notifier ${id}`);
    return n;
  }

  async show(principal: Principal, id: string): Promise<NotifierWithDeliveries> {
    return this.withDeliveries(await this.get(principal, id));
  }

  async list(
    principal: Principal,
    q: { page: number; limit: number; name?: string },
  ): Promise<{ items: NotifierWithDeliveries[]; total: number }> {
    const page = await notifierStore.list(this.db, principal.projects, q);
    const stats = await notifierStore.deliveryStats(
      this.db,
      page.items.map((n) => n.id),
    );
    return {
      items: page.items.map((n) => ({ notifier: n, deliveries: stats.get(n.id) ?? NO_DELIVERIES })),
      total: page.total,
    };
  }

  async update(principal: Principal, id: string, body: NotifierBody): Promise<NotifierWithDeliveries> {
    const current = await this.get(principal, id);
    await notifierStore.update(this.db, id, this.input(principal, body, current));
    return this.withDeliveries(await this.get(principal, id));
  }

  async delete(principal: Principal, ids: string[]) {
    const deleted = await notifierStore.deleteMany(this.db, ids, principal.projects);
    return ids.map((id) => ({ id, status: deleted.includes(id) ? ('deleted' as const) : ('not_found' as const) }));
  }

  async test(principal: Principal, id: string): Promise<WebhookResult> {
    const n = await this.get(principal, id);
    const body = testBody(principal.username);
    return this.webhooks.call(webhookTarget(n, this.secrets), body, body.id);
  }

  async testSettings(principal: Principal, s: WebhookSettings): Promise<WebhookResult> {
    const body = testBody(principal.username);
    return this.webhooks.call(
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
