import { iso, json, Queryable, traceHeaders } from '@bulwark/platform';
import type { PullRequestOfUpload } from '../domain/pull-request';
import { newestFirstPage } from './paging';

export type ScanState = 'queued' | 'running' | 'parsing' | 'completed' | 'failed' | 'stopped';
export const IN_FLIGHT: ScanState[] = ['queued', 'running', 'parsing'];

export interface ScanRecord {
  id: string;
  checkId: string;
  layerId: string;
  projectCode: string;
  securityToolId: string;
  toolTypeId: number;
  kind: 'scan' | 'upload';
  state: ScanState;
  progress: number;
  stage: string | null;
  error: string | null;
  requestedBy: string | null;
  attempts: number;
  leaseOwner: string | null;
  stopRequested: boolean;
  findingsCount: number | null;
  severityCounts: Record<string, number> | null;
  reportFormat: string | null;
  qualityGate: unknown;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** W3C traceparent of the work that queued the scan: the scan's run continues that trace. */
  traceparent: string | null;
  /** The pull request an upload was of. */
  pullRequest: PullRequestOfUpload | null;
}

export interface ScanRow {
  id: string;
  check_id: string;
  layer_id: string;
  project_code: string;
  security_tool_id: string;
  tool_type_id: number;
  kind: 'scan' | 'upload';
  state: ScanState;
  progress: number;
  stage: string | null;
  error: string | null;
  requested_by: string | null;
  attempts: number;
  lease_owner: string | null;
  stop_requested: boolean;
  findings_count: number | null;
  severity_counts: unknown;
  report_format: string | null;
  quality_gate: unknown;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  traceparent: string | null;
  pull_request: unknown;
}

export const toScanRecord = (r: ScanRow): ScanRecord => ({
  id: r.id,
  checkId: r.check_id,
  layerId: r.layer_id,
  projectCode: r.project_code,
  securityToolId: r.security_tool_id,
  toolTypeId: r.tool_type_id,
  kind: r.kind,
  state: r.state,
  progress: r.progress,
  stage: r.stage,
  error: r.error,
  requestedBy: r.requested_by,
  attempts: r.attempts,
  leaseOwner: r.lease_owner,
  stopRequested: r.stop_requested,
  findingsCount: r.findings_count,
  severityCounts: r.severity_counts === null ? null : json(r.severity_counts),
  reportFormat: r.report_format,
  qualityGate: r.quality_gate === null ? null : json(r.quality_gate),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  startedAt: iso(r.started_at),
  finishedAt: iso(r.finished_at),
  traceparent: r.traceparent,
  pullRequest: r.pull_request === null ? null : json<PullRequestOfUpload>(r.pull_request),
});

export type NewScan = Pick<
  ScanRecord,
  'id' | 'checkId' | 'layerId' | 'projectCode' | 'securityToolId' | 'toolTypeId' | 'kind' | 'state' | 'requestedBy'
> &
  Partial<Pick<ScanRecord, 'pullRequest'>>;

export interface ScanQuery {
  page: number;
  limit: number;
  checkId?: string;
  checkIds?: string[];
  layerId?: string;
  projectCode?: string;
  state?: ScanState;
  createdFrom?: string;
  createdTo?: string;
  updatedFrom?: string;
  updatedTo?: string;
  projects: string[] | null;
}

export const scanStore = {
  async insert(db: Queryable, s: NewScan): Promise<void> {
    await db('scans').insert({
      id: s.id,
      check_id: s.checkId,
      layer_id: s.layerId,
      project_code: s.projectCode,
      security_tool_id: s.securityToolId,
      tool_type_id: s.toolTypeId,
      kind: s.kind,
      state: s.state,
      requested_by: s.requestedBy,
      traceparent: traceHeaders().traceparent ?? null,
      pull_request: s.pullRequest ? JSON.stringify(s.pullRequest) : null,
    });
  },

  async get(db: Queryable, id: string): Promise<ScanRecord | undefined> {
    const row = await db<ScanRow>('scans').where({ id }).first();
    return row ? toScanRecord(row) : undefined;
  },

  async inFlightFor(db: Queryable, checkIds: string[]): Promise<ScanRecord[]> {
    if (checkIds.length === 0) return [];
    const rows = await db<ScanRow>('scans').whereIn('check_id', checkIds).whereIn('state', IN_FLIGHT);
    return rows.map(toScanRecord);
  },

  /** Scans in flight across the deployment (queued, running or parsing): what the license's scanning_processes limit counts. */
  async countInFlight(db: Queryable): Promise<number> {
    const [{ n }] = await db('scans').whereIn('state', IN_FLIGHT).count({ n: '*' });
    return Number(n);
  },

  /** How many scans are in each in-flight state (states with none are absent). */
  async countInFlightByState(db: Queryable): Promise<{ state: string; count: number }[]> {
    return db('scans')
      .whereIn('state', IN_FLIGHT)
      .select('state')
      .count<{ state: string; count: number }[]>({ count: '*' })
      .groupBy('state');
  },

  /** Which of these scans are still queued or running. */
  async inFlightIds(db: Queryable, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await db<ScanRow>('scans')
      .select('id')
      .whereIn('id', ids)
      .whereIn('state', IN_FLIGHT);
    return new Set(rows.map((r) => r.id));
  },

  async latestFor(db: Queryable, checkIds: string[]): Promise<Map<string, ScanRecord>> {
    if (checkIds.length === 0) return new Map();
    const rows: ScanRow[] = await db<ScanRow>('scans')
      .distinctOn('check_id')
      .whereIn('check_id', checkIds)
      .orderBy([{ column: 'check_id' }, { column: 'created_at', order: 'desc' }]);
    return new Map(rows.map((r) => [r.check_id, toScanRecord(r)]));
  },

  async list(db: Queryable, q: ScanQuery): Promise<{ items: ScanRecord[]; total: number }> {
    const base = db('scans').where((w) => {
      if (q.checkId) w.where('check_id', q.checkId);
      if (q.checkIds) w.whereIn('check_id', q.checkIds);
      if (q.layerId) w.where('layer_id', q.layerId);
      if (q.projectCode) w.where('project_code', q.projectCode);
      if (q.state) w.where('state', q.state);
      if (q.createdFrom) w.where('created_at', '>=', q.createdFrom);
      if (q.createdTo) w.where('created_at', '<=', q.createdTo);
      if (q.updatedFrom) w.where('updated_at', '>=', q.updatedFrom);
      if (q.updatedTo) w.where('updated_at', '<=', q.updatedTo);
      if (q.projects) w.whereIn('project_code', q.projects);
    });
    return newestFirstPage(base, q, toScanRecord);
  },

  /** Distinct values of the filterable columns among the scans matching `q`. */
  async filterValues(
    db: Queryable,
    q: {
      checkIds?: string[];
      createdFrom?: string;
      createdTo?: string;
      updatedFrom?: string;
      updatedTo?: string;
      projects: string[] | null;
    },
  ) {
    const scoped = () =>
      db('scans').where((w) => {
        if (q.checkIds?.length) w.whereIn('check_id', q.checkIds);
        if (q.createdFrom) w.where('created_at', '>=', q.createdFrom);
        if (q.createdTo) w.where('created_at', '<=', q.createdTo);
        if (q.updatedFrom) w.where('updated_at', '>=', q.updatedFrom);
        if (q.updatedTo) w.where('updated_at', '<=', q.updatedTo);
        if (q.projects) w.whereIn('project_code', q.projects);
      });
    const counted = async (column: string) =>
      (
        (await scoped().select(column).count({ n: '*' }).groupBy(column).orderBy(column).limit(1000)) as Record<
          string,
          string
        >[]
      ).map((r) => ({ value: r[column], count: Number(r.n) }));
    const distinct = async (column: string) =>
      (await scoped().distinct(column).orderBy(column).limit(1000)).map((r: Record<string, string>) => r[column]);
    const [checks, states, projects, layers, kinds, range] = await Promise.all([
      counted('check_id'),
      counted('state'),
      distinct('project_code'),
      distinct('layer_id'),
      distinct('kind'),
      scoped()
        .min({ min: 'created_at' })
        .max({ max: 'created_at' })
        .first<{ min: Date | null; max: Date | null } | undefined>(),
    ]);
    return {
      checks: checks.map((c) => ({ check_id: c.value, count: c.count })),
      states: states.map((c) => ({ state: c.value, count: c.count })),
      project_codes: projects,
      layer_ids: layers,
      kinds,
      created_at: { min: iso(range?.min), max: iso(range?.max) },
    };
  },

  /** Moves a scan to a final state; only from a state in `from`, so a late writer cannot undo a stop. */
  async finish(
    db: Queryable,
    id: string,
    from: ScanState[],
    to: 'completed' | 'failed' | 'stopped',
    fields: {
      error?: string | null;
      findingsCount?: number;
      severityCounts?: Record<string, number>;
      reportFormat?: string | null;
      findingsDigest?: string;
      progress?: number;
    } = {},
    /** A worker finishes only a scan it still holds. */
    owner?: string,
  ): Promise<boolean> {
    const n = await db('scans')
      .where({ id })
      .where((w) => {
        if (owner) w.where('lease_owner', owner);
      })
      .whereIn('state', from)
      .update({
        state: to,
        stage: null,
        lease_owner: null,
        lease_until: null,
        finished_at: db.fn.now(),
        updated_at: db.fn.now(),
        progress: fields.progress ?? (to === 'completed' ? 100 : db.raw('progress')),
        ...(fields.error !== undefined ? { error: fields.error } : {}),
        ...(fields.findingsCount !== undefined ? { findings_count: fields.findingsCount } : {}),
        ...(fields.severityCounts !== undefined ? { severity_counts: JSON.stringify(fields.severityCounts) } : {}),
        ...(fields.reportFormat !== undefined ? { report_format: fields.reportFormat } : {}),
        ...(fields.findingsDigest !== undefined ? { findings_digest: fields.findingsDigest } : {}),
      });
    return n > 0;
  },

  async setQualityGate(db: Queryable, id: string, verdict: unknown): Promise<void> {
    await db('scans')
      .where({ id })
      .update({ quality_gate: JSON.stringify(verdict), updated_at: db.fn.now() });
  },

  async requestStop(db: Queryable, id: string): Promise<void> {
    await db('scans').where({ id }).update({ stop_requested: true, updated_at: db.fn.now() });
  },
};
