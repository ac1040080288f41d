import type { WebhookPayloadFormat } from '@bulwark/contracts';
import { containing, iso, isUuid, pgArray, Queryable, withinProjects } from '@bulwark/platform';

export interface NotifierRow {
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
  previous_signing_secret_expires_at: string | null;
  events: string[];
  project_codes: string[];
  all_projects: boolean;
  active: boolean;
  author: string;
  created_at: string;
  updated_at: string;
}

export type NotifierInput = Omit<NotifierRow, 'id' | 'author' | 'created_at' | 'updated_at'>;

/** A row as the driver returns it: timestamps as Date. */
type NotifierRecord = Omit<NotifierRow, 'previous_signing_secret_expires_at' | 'created_at' | 'updated_at'> & {
  previous_signing_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const fromRow = (r: NotifierRecord): NotifierRow => ({
  ...r,
  previous_signing_secret_expires_at: iso(r.previous_signing_secret_expires_at) ?? null,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

const arrays = (db: Queryable, r: Partial<NotifierInput>) => ({
  ...r,
  ...(r.events ? { events: db.raw('?::text[]', [pgArray(r.events)]) } : {}),
  ...(r.project_codes ? { project_codes: db.raw('?::text[]', [pgArray(r.project_codes)]) } : {}),
});

export const notifierStore = {
  async insert(db: Queryable, id: string, author: string, r: NotifierInput): Promise<NotifierRow> {
    const [row] = await db('notifiers')
      .insert({ id, author, ...arrays(db, r) })
      .returning<NotifierRecord[]>('*');
    return fromRow(row);
  },

  async update(db: Queryable, id: string, r: Partial<NotifierInput>): Promise<void> {
    await db('notifiers')
      .where({ id })
      .update({ ...arrays(db, r), updated_at: db.fn.now() });
  },

  async get(db: Queryable, id: string, projects: string[] | null): Promise<NotifierRow | undefined> {
    if (!isUuid(id)) return undefined;
    const row = await withinProjects(db('notifiers').where({ id }), projects).first<NotifierRecord | undefined>();
    return row ? fromRow(row) : undefined;
  },

  async getMany(db: Queryable, ids: string[]): Promise<Map<string, NotifierRow>> {
    const rows = ids.length
      ? await db<NotifierRecord>('notifiers').whereRaw('id = any(?::uuid[])', [pgArray([...new Set(ids)])])
      : [];
    return new Map(rows.map((r) => [r.id, fromRow(r)]));
  },

  async list(db: Queryable, projects: string[] | null, q: { page: number; limit: number; name?: string }) {
    const base = withinProjects(db('notifiers'), projects);
    if (q.name) base.whereRaw("name ilike ? escape '\\'", [containing(q.name)]);
    const [{ n }] = await base.clone().count<{ n: string | number }[]>({ n: '*' });
    const rows = await base
      .select<NotifierRecord[]>('*')
      .orderBy('name')
      .orderBy('id')
      .offset((q.page - 1) * q.limit)
      .limit(q.limit);
    return { items: rows.map(fromRow), total: Number(n) };
  },

  async deleteMany(db: Queryable, ids: string[], projects: string[] | null): Promise<string[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows: { id: string }[] = await withinProjects(
      db('notifiers').whereRaw('id = any(?::uuid[])', [pgArray(valid)]),
      projects,
    )
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
  async deliveryStats(
    db: Queryable,
    ids: string[],
  ): Promise<Map<string, { pending: number; delivered: number; failed: number; last_error: string | null }>> {
    const out = new Map<string, { pending: number; delivered: number; failed: number; last_error: string | null }>();
    if (ids.length === 0) return out;
    for (const id of ids) out.set(id, { pending: 0, delivered: 0, failed: 0, last_error: null });
    const counts: { notifier_id: string; state: 'pending' | 'delivered' | 'failed'; n: string }[] = await db(
      'deliveries',
    )
      .select('notifier_id', 'state')
      .count({ n: '*' })
      .whereRaw('notifier_id = any(?::uuid[])', [pgArray(ids)])
      .groupBy('notifier_id', 'state');
    for (const c of counts) out.get(c.notifier_id)![c.state] = Number(c.n);
    const errors = await db('deliveries')
      .distinctOn('notifier_id')
      .select<{ notifier_id: string; last_error: string }[]>('notifier_id', 'last_error')
      .whereRaw('notifier_id = any(?::uuid[])', [pgArray(ids)])
      .whereNotNull('last_error')
      .orderBy([{ column: 'notifier_id' }, { column: 'next_attempt_at', order: 'desc' }]);
    for (const e of errors) out.get(e.notifier_id)!.last_error = e.last_error;
    return out;
  },
};
