import type { WebhookPayloadFormat } from '@bulwark/contracts';
import { containing, iso, isUuid, pgArray, present, Queryable, queryPage, touchingProjects } from '@bulwark/platform';

/** A stored notifier: its token and signing secrets only in sealed form. */
export interface NotifierRecord {
  id: string;
  name: string;
  typeId: number;
  url: string;
  rateLimit: number;
  timeoutSeconds: number;
  payloadFormat: WebhookPayloadFormat;
  authHeaderName: string | null;
  authHeaderValueSealed: string | null;
  signingSecretSealed: string | null;
  previousSigningSecretSealed: string | null;
  previousSigningSecretExpiresAt: string | null;
  events: string[];
  projectCodes: string[];
  allProjects: boolean;
  active: boolean;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export type NotifierWrite = Omit<NotifierRecord, 'id' | 'author' | 'createdAt' | 'updatedAt'>;

/** How a notifier's deliveries stand. */
export interface DeliveryStats {
  pending: number;
  delivered: number;
  failed: number;
  lastError: string | null;
}

/** A row as the driver returns it: timestamps as Date. */
interface NotifierRow {
  id: string;
  name: string;
  type_id: number;
  url: string;
  rate_limit: number;
  timeout_seconds: number;
  payload_format: WebhookPayloadFormat;
  auth_header_name: string | null;
  auth_header_value_sealed: string | null;
  signing_secret_sealed: string | null;
  previous_signing_secret_sealed: string | null;
  previous_signing_secret_expires_at: Date | null;
  events: string[];
  project_codes: string[];
  all_projects: boolean;
  active: boolean;
  author: string;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (r: NotifierRow): NotifierRecord => ({
  id: r.id,
  name: r.name,
  typeId: r.type_id,
  url: r.url,
  rateLimit: r.rate_limit,
  timeoutSeconds: r.timeout_seconds,
  payloadFormat: r.payload_format,
  authHeaderName: r.auth_header_name,
  authHeaderValueSealed: r.auth_header_value_sealed,
  signingSecretSealed: r.signing_secret_sealed,
  previousSigningSecretSealed: r.previous_signing_secret_sealed,
  previousSigningSecretExpiresAt: iso(r.previous_signing_secret_expires_at) ?? null,
  events: r.events,
  projectCodes: r.project_codes,
  allProjects: r.all_projects,
  active: r.active,
  author: r.author,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const columns = (db: Queryable, w: NotifierWrite) => ({
  name: w.name,
  type_id: w.typeId,
  url: w.url,
  rate_limit: w.rateLimit,
  timeout_seconds: w.timeoutSeconds,
  payload_format: w.payloadFormat,
  auth_header_name: w.authHeaderName,
  auth_header_value_sealed: w.authHeaderValueSealed,
  signing_secret_sealed: w.signingSecretSealed,
  previous_signing_secret_sealed: w.previousSigningSecretSealed,
  previous_signing_secret_expires_at: w.previousSigningSecretExpiresAt,
  events: db.raw('?::text[]', [pgArray(w.events)]),
  active: w.active,
  all_projects: w.allProjects,
  project_codes: db.raw('?::text[]', [pgArray(w.projectCodes)]),
});

export const notifierStore = {
  async insert(db: Queryable, id: string, author: string, w: NotifierWrite): Promise<NotifierRecord> {
    const [row] = await db('notifiers')
      .insert({ id, author, ...columns(db, w) })
      .returning<NotifierRow[]>('*');
    return toRecord(row);
  },

  async update(db: Queryable, id: string, w: NotifierWrite): Promise<void> {
    await db('notifiers')
      .where({ id })
      .update({ ...columns(db, w), updated_at: db.fn.now() });
  },

  async get(db: Queryable, id: string): Promise<NotifierRecord | undefined> {
    if (!isUuid(id)) return undefined;
    const row = await db<NotifierRow>('notifiers').where({ id }).first();
    return row ? toRecord(row) : undefined;
  },

  async getMany(db: Queryable, ids: string[]): Promise<Map<string, NotifierRecord>> {
    const rows = ids.length
      ? await db<NotifierRow>('notifiers').whereRaw('id = any(?::uuid[])', [pgArray([...new Set(ids)])])
      : [];
    return new Map(rows.map((r) => [r.id, toRecord(r)]));
  },

  /** The notifiers touching `projects` (null: every project), by name. */
  async list(db: Queryable, projects: string[] | null, q: { page: number; limit: number; name?: string }) {
    const base = touchingProjects(db('notifiers'), projects);
    if (q.name) base.whereRaw("name ilike ? escape '\\'", [containing(q.name)]);
    const { rows, total } = await queryPage<NotifierRow>(base, q, [{ column: 'name' }, { column: 'id' }]);
    return { items: rows.map(toRecord), total };
  },

  async deleteMany(db: Queryable, ids: string[]): Promise<string[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows: { id: string }[] = await db('notifiers')
      .whereRaw('id = any(?::uuid[])', [pgArray(valid)])
      .delete()
      .returning('id');
    return rows.map((r) => r.id);
  },

  /** Active notifiers that want an event of this type and project. */
  async subscribed(db: Queryable, type: string, projectCode: string | null): Promise<string[]> {
    const q = db('notifiers').select('id').where('active', true).whereRaw("(events = '{}' or ? = any(events))", [type]);
    q.where((w) => {
      w.where('all_projects', true);
      if (projectCode !== null) w.orWhereRaw('? = any(project_codes)', [projectCode]);
    });
    return (await q).map((r: { id: string }) => r.id);
  },

  /** Delivery counts per state and the latest error, for a notifier's view. */
  async deliveryStats(db: Queryable, ids: string[]): Promise<Map<string, DeliveryStats>> {
    const out = new Map<string, DeliveryStats>();
    if (ids.length === 0) return out;
    for (const id of ids) out.set(id, { pending: 0, delivered: 0, failed: 0, lastError: null });
    // The queries below read only these ids.
    const statsOf = (id: string) => present(out.get(id), `the delivery stats of notifier ${id}`);
    const counts: { notifier_id: string; state: 'pending' | 'delivered' | 'failed'; n: string }[] = await db(
      'deliveries',
    )
      .select('notifier_id', 'state')
      .count({ n: '*' })
      .whereRaw('notifier_id = any(?::uuid[])', [pgArray(ids)])
      .groupBy('notifier_id', 'state');
    for (const c of counts) statsOf(c.notifier_id)[c.state] = Number(c.n);
    const errors = await db('deliveries')
      .distinctOn('notifier_id')
      .select<{ notifier_id: string; last_error: string }[]>('notifier_id', 'last_error')
      .whereRaw('notifier_id = any(?::uuid[])', [pgArray(ids)])
      .whereNotNull('last_error')
      .orderBy([{ column: 'notifier_id' }, { column: 'next_attempt_at', order: 'desc' }]);
    for (const e of errors) statsOf(e.notifier_id).lastError = e.last_error;
    return out;
  },
};
