import { containing, iso, isUuid, json, pgArray, Queryable, queryPage, withinProjects } from '@bulwark/platform';
import type { ReportSnapshot } from '../domain/snapshot';

export type ReportState = 'queued' | 'running' | 'ready' | 'failed';

export interface ReportRecord {
  id: string;
  name: string;
  type: string;
  period: string;
  projectCodes: string[];
  allProjects: boolean;
  rangeFrom: string | null;
  rangeTo: string | null;
  author: string;
  state: ReportState;
  progress: number;
  error: string | null;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** What a new report is queued with. */
export type ReportWrite = Pick<
  ReportRecord,
  'id' | 'name' | 'type' | 'period' | 'projectCodes' | 'allProjects' | 'rangeFrom' | 'rangeTo' | 'author' | 'createdAt'
>;

/** A report's row as the driver returns it: timestamps as Date. */
interface ReportRow {
  id: string;
  name: string;
  type: string;
  period: string;
  project_codes: string[];
  all_projects: boolean;
  range_from: Date | null;
  range_to: Date | null;
  author: string;
  state: ReportState;
  progress: number;
  error: string | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** Every column but the snapshot, which only generation and download read. */
const COLUMNS: (keyof ReportRow)[] = [
  'id',
  'name',
  'type',
  'period',
  'project_codes',
  'all_projects',
  'range_from',
  'range_to',
  'author',
  'state',
  'progress',
  'error',
  'attempts',
  'created_at',
  'started_at',
  'finished_at',
];

const toRecord = (r: ReportRow): ReportRecord => ({
  id: r.id,
  name: r.name,
  type: r.type,
  period: r.period,
  projectCodes: r.project_codes,
  allProjects: r.all_projects,
  rangeFrom: iso(r.range_from),
  rangeTo: iso(r.range_to),
  author: r.author,
  state: r.state,
  progress: r.progress,
  error: r.error,
  attempts: r.attempts,
  createdAt: iso(r.created_at),
  startedAt: iso(r.started_at),
  finishedAt: iso(r.finished_at),
});

export const reportStore = {
  async insert(db: Queryable, r: ReportWrite): Promise<ReportRecord> {
    const [row] = await db('reports')
      .insert({
        id: r.id,
        name: r.name,
        type: r.type,
        period: r.period,
        project_codes: db.raw('?::text[]', [pgArray(r.projectCodes)]),
        all_projects: r.allProjects,
        range_from: r.rangeFrom,
        range_to: r.rangeTo,
        author: r.author,
        created_at: r.createdAt,
        state: 'queued',
      })
      .returning<ReportRow[]>(COLUMNS);
    return toRecord(row);
  },

  async get(db: Queryable, id: string, projects: string[] | null): Promise<ReportRecord | undefined> {
    if (!isUuid(id)) return undefined;
    const row = await withinProjects(db('reports').select(COLUMNS).where({ id }), projects).first<
      ReportRow | undefined
    >();
    return row ? toRecord(row) : undefined;
  },

  async list(
    db: Queryable,
    projects: string[] | null,
    q: { page: number; limit: number; name?: string; state?: string; type?: string },
  ) {
    const base = withinProjects(db('reports'), projects);
    if (q.name) base.whereRaw("name ilike ? escape '\\'", [containing(q.name)]);
    if (q.state) base.where('state', q.state);
    if (q.type) base.where('type', q.type);
    const { rows, total } = await queryPage<ReportRow>(base.select(COLUMNS), q, [
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
    return { items: rows.map(toRecord), total };
  },

  async rename(db: Queryable, id: string, name: string): Promise<void> {
    await db('reports').where({ id }).update({ name });
  },

  async deleteMany(db: Queryable, ids: string[], projects: string[] | null): Promise<string[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows: { id: string }[] = await withinProjects(
      db('reports').whereRaw('id = any(?::uuid[])', [pgArray(valid)]),
      projects,
    )
      .delete()
      .returning('id');
    return rows.map((r) => r.id);
  },

  /**
   * Takes the oldest report waiting for generation: queued (and past its retry delay), or running
   * under a lease that ran out (its process died). SKIP LOCKED lets several processes generate
   * different reports at once.
   */
  async claim(db: Queryable, leaseSeconds: number): Promise<ReportRecord | undefined> {
    const rows = (
      await db.raw<{ rows: ReportRow[] }>(
        `update reports r set state = 'running', progress = 0, attempts = r.attempts + 1, started_at = now(), lease_until = now() + make_interval(secs => ?)
         where r.id = (
           select id from reports where state in ('queued', 'running') and coalesce(lease_until, '-infinity') < now()
           order by created_at for update skip locked limit 1
         )
         returning ${COLUMNS.map((c) => `r.${c}`).join(', ')}`,
        [leaseSeconds],
      )
    ).rows;
    return rows[0] ? toRecord(rows[0]) : undefined;
  },

  /** Records progress while the lease is still this generation's (attempt); false when it was lost. */
  async progress(db: Queryable, id: string, attempt: number, progress: number, leaseSeconds: number): Promise<boolean> {
    const n = await db('reports')
      .where({ id, attempts: attempt, state: 'running' })
      .update({ progress, lease_until: db.raw('now() + make_interval(secs => ?)', [leaseSeconds]) });
    return n > 0;
  },

  async finish(
    db: Queryable,
    id: string,
    attempt: number,
    result: { snapshot: ReportSnapshot } | { error: string },
  ): Promise<boolean> {
    const patch =
      'snapshot' in result
        ? { state: 'ready', progress: 100, snapshot: JSON.stringify(result.snapshot), error: null }
        : { state: 'failed', error: result.error };
    const n = await db('reports')
      .where({ id, attempts: attempt, state: 'running' })
      .update({ ...patch, lease_until: null, finished_at: db.fn.now() });
    return n > 0;
  },

  /** Puts a failed attempt back in the queue, to be tried again after `delaySeconds` (if it is still this attempt's). */
  async requeue(db: Queryable, id: string, attempt: number, delaySeconds: number): Promise<void> {
    await db('reports')
      .where({ id, attempts: attempt, state: 'running' })
      .update({
        state: 'queued',
        progress: 0,
        lease_until: db.raw('now() + make_interval(secs => ?)', [delaySeconds]),
      });
  },

  async snapshot(db: Queryable, id: string): Promise<ReportSnapshot | undefined> {
    const row = await db<{ id: string; snapshot: unknown }>('reports').select('snapshot').where({ id }).first();
    return row?.snapshot ? json<ReportSnapshot>(row.snapshot) : undefined;
  },

  async file(db: Queryable, id: string, format: string): Promise<Buffer | undefined> {
    const row = await db<{ report_id: string; format: string; body: Buffer }>('report_files')
      .select('body')
      .where({ report_id: id, format })
      .first();
    return row ? Buffer.from(row.body) : undefined;
  },

  async saveFile(db: Queryable, id: string, format: string, body: Buffer): Promise<void> {
    await db('report_files').insert({ report_id: id, format, body }).onConflict(['report_id', 'format']).ignore();
  },
};
