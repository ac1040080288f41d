import { randomUUID } from 'node:crypto';
import type { WebhookPayloadFormat } from '@bulwark/contracts';
import { Db, invalid, notFound, Principal, requestedProjects, SecretBox } from '@bulwark/platform';
import { NotifierInput, NotifierRow, notifierStore } from './store/notifiers';
import { WebhookClient, WebhookResult, WebhookTarget } from './webhook';

type TestAnswer = Pick<WebhookResult, 'delivered' | 'status' | 'error' | 'duration_ms'>;

/** What a notifier test answers: not whether the address was refused, which would tell it from a closed port. */
const testAnswer = (r: WebhookResult): TestAnswer => ({
  delivered: r.delivered,
  status: r.status,
  error: r.error,
  duration_ms: r.duration_ms,
});

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

type Stats = { pending: number; delivered: number; failed: number; last_error: string | null };

export function notifierView(n: NotifierRow, stats: Stats = { pending: 0, delivered: 0, failed: 0, last_error: null }) {
  return {
    id: n.id,
    name: n.name,
    type_id: n.type_id,
    active: n.active,
    events: n.events,
    project_codes: n.all_projects ? [] : n.project_codes,
    settings: {
      url: n.url,
      rate_limit: n.rate_limit,
      auth_header_name: n.auth_header_name,
      auth_header_set: n.auth_header_value_sealed !== null,
      timeout_seconds: n.timeout_seconds,
      payload_format: n.payload_format,
      signing_secret_set: n.signing_secret_sealed !== null,
      previous_signing_secret_expires_at: previousSecretUntil(n),
    },
    author: n.author,
    created_at: n.created_at,
    updated_at: n.updated_at,
    deliveries: stats,
  };
}

/** Until when a replaced signing secret still signs; null when there is none or it has expired. */
function previousSecretUntil(n: NotifierRow): string | null {
  const until = n.previous_signing_secret_expires_at;
  return n.previous_signing_secret_sealed && until && Date.parse(until) > Date.now() ? until : null;
}

/** Where and how a saved notifier is called, its secrets opened. */
export function webhookTarget(n: NotifierRow, secrets: SecretBox): WebhookTarget {
  const open = (sealed: string | null) => (sealed ? secrets.open(sealed) : null);
  const signing = [
    open(n.signing_secret_sealed),
    previousSecretUntil(n) ? open(n.previous_signing_secret_sealed) : null,
  ];
  return {
    url: n.url,
    timeoutSeconds: n.timeout_seconds,
    authHeaderName: n.auth_header_name,
    authHeaderValue: open(n.auth_header_value_sealed),
    signingSecrets: signing.filter((x): x is string => x !== null),
    payloadFormat: n.payload_format,
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

  private scope(principal: Principal, codes: string[]): { all_projects: boolean; project_codes: string[] } {
    const { allProjects, projectCodes, outside } = requestedProjects(principal, codes);
    if (outside.length)
      throw invalid(`Unknown project ${outside.join(', ')}`, [
        { field: 'project_codes', problem: `has no project ${outside.join(', ')} that you can see` },
      ]);
    return { all_projects: allProjects, project_codes: projectCodes };
  }

  private input(principal: Principal, body: NotifierBody, current?: NotifierRow): NotifierInput {
    const s = body.settings;
    if (s.auth_header_value && !s.auth_header_name)
      throw invalid('A token needs its header', [
        { field: 'settings.auth_header_name', problem: 'is required with settings.auth_header_value' },
      ]);
    // A token left out of an update is kept, unless the header it went with is dropped.
    const sealed = s.auth_header_value
      ? this.secrets.seal(s.auth_header_value)
      : s.auth_header_name
        ? (current?.auth_header_value_sealed ?? null)
        : null;
    return {
      name: body.name,
      type_id: body.type_id,
      url: s.url,
      rate_limit: s.rate_limit,
      timeout_seconds: s.timeout_seconds,
      payload_format: s.payload_format,
      auth_header_name: s.auth_header_name ?? null,
      auth_header_value_sealed: sealed,
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
    current?: NotifierRow,
  ): Pick<
    NotifierInput,
    'signing_secret_sealed' | 'previous_signing_secret_sealed' | 'previous_signing_secret_expires_at'
  > {
    const kept = {
      signing_secret_sealed: current?.signing_secret_sealed ?? null,
      previous_signing_secret_sealed: current?.previous_signing_secret_sealed ?? null,
      previous_signing_secret_expires_at: current?.previous_signing_secret_expires_at ?? null,
    };
    if (!secret) return kept;
    const replaced = kept.signing_secret_sealed;
    if (replaced && this.secrets.open(replaced) === secret) return kept;
    const rotating = replaced !== null && this.secretRotationHours > 0;
    return {
      signing_secret_sealed: this.secrets.seal(secret),
      previous_signing_secret_sealed: rotating ? replaced : null,
      previous_signing_secret_expires_at: rotating
        ? new Date(Date.now() + this.secretRotationHours * 3_600_000).toISOString()
        : null,
    };
  }

  private async view(n: NotifierRow) {
    return notifierView(n, (await notifierStore.deliveryStats(this.db, [n.id])).get(n.id));
  }

  async create(principal: Principal, body: NotifierBody) {
    return this.view(
      await notifierStore.insert(this.db, randomUUID(), principal.username, this.input(principal, body)),
    );
  }

  async get(principal: Principal, id: string): Promise<NotifierRow> {
    const n = await notifierStore.get(this.db, id, principal.projects);
    if (!n) throw notFound(`Notifier ${id}`);
    return n;
  }

  async show(principal: Principal, id: string) {
    return this.view(await this.get(principal, id));
  }

  async list(principal: Principal, q: { page: number; limit: number; name?: string }) {
    const page = await notifierStore.list(this.db, principal.projects, q);
    const stats = await notifierStore.deliveryStats(
      this.db,
      page.items.map((n) => n.id),
    );
    return {
      items: page.items.map((n) => notifierView(n, stats.get(n.id))),
      total: page.total,
      page: q.page,
      limit: q.limit,
    };
  }

  async update(principal: Principal, id: string, body: NotifierBody) {
    const current = await this.get(principal, id);
    await notifierStore.update(this.db, id, this.input(principal, body, current));
    return this.view(await this.get(principal, id));
  }

  async delete(principal: Principal, ids: string[]) {
    const deleted = await notifierStore.deleteMany(this.db, ids, principal.projects);
    return ids.map((id) => ({ id, status: deleted.includes(id) ? ('deleted' as const) : ('not_found' as const) }));
  }

  async test(principal: Principal, id: string): Promise<TestAnswer> {
    const n = await this.get(principal, id);
    const body = testBody(principal.username);
    return testAnswer(await this.webhooks.call(webhookTarget(n, this.secrets), body, body.id));
  }

  async testSettings(principal: Principal, s: WebhookSettings): Promise<TestAnswer> {
    const body = testBody(principal.username);
    return testAnswer(
      await this.webhooks.call(
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
      ),
    );
  }
}
