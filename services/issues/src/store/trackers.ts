import { randomUUID } from 'node:crypto';
import { iso, json, pgArray, Queryable, queryPage } from '@bulwark/platform';
import type { TrackerType } from '@bulwark/contracts';
import type { StatusMapping } from '../domain/tickets';
import { retryQueue } from './retry-queue';

export interface ProjectMapping {
  project_code: string;
  tracker_project: string;
  issue_type: string;
}

export interface FieldTemplates {
  summary?: string;
  description?: string;
  labels?: string[];
}

interface TrackerRow {
  id: string;
  name: string;
  type: TrackerType;
  url: string;
  credentials_sealed: string;
  projects: unknown;
  status_mapping: unknown;
  field_templates: unknown;
  jira_api_version: number | string;
  sync_enabled: boolean;
  last_sync_at: Date | null;
  last_sync_error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A task tracker; its project mappings, status mapping and templates are the JSON documents the API holds. */
export interface TrackerRecord {
  id: string;
  name: string;
  type: TrackerType;
  url: string;
  credentialsSealed: string;
  projects: ProjectMapping[];
  statusMapping: StatusMapping;
  fieldTemplates: FieldTemplates;
  jiraApiVersion: 2 | 3;
  syncEnabled: boolean;
  lastSyncAt: string | null;
  lastSyncError: string | null;
  createdAt: string;
  updatedAt: string;
}

export type TrackerInput = Pick<
  TrackerRecord,
  | 'name'
  | 'type'
  | 'url'
  | 'credentialsSealed'
  | 'projects'
  | 'statusMapping'
  | 'fieldTemplates'
  | 'jiraApiVersion'
  | 'syncEnabled'
>;

interface TicketRow {
  id: string;
  tracker_id: string;
  key: string;
  url: string;
  status: string | null;
  closed: boolean;
  synced_at: Date | null;
}

export interface TicketRecord {
  id: string;
  trackerId: string;
  key: string;
  url: string;
  status: string | null;
  closed: boolean;
  syncedAt: string | null;
}

/** An issue's ticket, with the type of its tracker. */
export type IssueTicket = TicketRecord & { issueId: string; trackerType: TrackerType };

interface PushRow {
  id: string;
  ticket_id: string;
  issue_id: string;
  to_status: number;
  actor: string;
  attempts: number;
}

/** A status change of a linked issue, due to reach its ticket. */
export interface PushRecord {
  id: string;
  ticketId: string;
  issueId: string;
  toStatus: number;
  actor: string;
  attempts: number;
}

const toTrackerRecord = (r: TrackerRow): TrackerRecord => ({
  id: r.id,
  name: r.name,
  type: r.type,
  url: r.url,
  credentialsSealed: r.credentials_sealed,
  projects: json<ProjectMapping[]>(r.projects),
  statusMapping: json<StatusMapping>(r.status_mapping),
  fieldTemplates: json<FieldTemplates>(r.field_templates),
  jiraApiVersion: Number(r.jira_api_version) as 2 | 3,
  syncEnabled: r.sync_enabled,
  lastSyncAt: iso(r.last_sync_at),
  lastSyncError: r.last_sync_error,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const trackerColumns = (t: Partial<TrackerInput>) => ({
  ...(t.name !== undefined ? { name: t.name } : {}),
  ...(t.type !== undefined ? { type: t.type } : {}),
  ...(t.url !== undefined ? { url: t.url } : {}),
  ...(t.credentialsSealed !== undefined ? { credentials_sealed: t.credentialsSealed } : {}),
  ...(t.projects ? { projects: JSON.stringify(t.projects) } : {}),
  ...(t.statusMapping ? { status_mapping: JSON.stringify(t.statusMapping) } : {}),
  ...(t.fieldTemplates ? { field_templates: JSON.stringify(t.fieldTemplates) } : {}),
  ...(t.jiraApiVersion !== undefined ? { jira_api_version: t.jiraApiVersion } : {}),
  ...(t.syncEnabled !== undefined ? { sync_enabled: t.syncEnabled } : {}),
});

const toTicketRecord = (r: TicketRow): TicketRecord => ({
  id: r.id,
  trackerId: r.tracker_id,
  key: r.key,
  url: r.url,
  status: r.status,
  closed: r.closed,
  syncedAt: iso(r.synced_at),
});

const toPushRecord = (r: PushRow): PushRecord => ({
  id: r.id,
  ticketId: r.ticket_id,
  issueId: r.issue_id,
  toStatus: r.to_status,
  actor: r.actor,
  attempts: r.attempts,
});

interface TrackerQuery {
  name?: string;
  types?: string[];
}

function trackersMatching(db: Queryable, q: TrackerQuery) {
  const base = db<TrackerRow>('trackers');
  if (q.name) base.whereILike('name', `%${q.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  if (q.types?.length) base.whereIn('type', q.types);
  return base;
}

export const trackerStore = {
  async insert(db: Queryable, t: TrackerInput): Promise<TrackerRecord> {
    const [row] = await db('trackers')
      .insert({ id: randomUUID(), ...trackerColumns(t) })
      .returning<TrackerRow[]>('*');
    return toTrackerRecord(row);
  },

  async update(db: Queryable, id: string, t: Partial<TrackerInput>): Promise<TrackerRecord | undefined> {
    const [row] = await db('trackers')
      .where({ id })
      .update({ ...trackerColumns(t), updated_at: db.fn.now() })
      .returning<TrackerRow[]>('*');
    return row ? toTrackerRecord(row) : undefined;
  },

  async get(db: Queryable, id: string): Promise<TrackerRecord | undefined> {
    const row = await db<TrackerRow>('trackers').where({ id }).first();
    return row ? toTrackerRecord(row) : undefined;
  },

  async list(db: Queryable, q: TrackerQuery & { page: number; limit: number }) {
    const base = trackersMatching(db, q);
    const { rows, total } = await queryPage<TrackerRow>(base, q, [{ column: 'created_at' }, { column: 'id' }]);
    return { total, items: rows.map(toTrackerRecord) };
  },

  /** Every tracker the query matches, in the list's order (at most `limit`). */
  async matching(db: Queryable, q: TrackerQuery, limit: number): Promise<TrackerRecord[]> {
    const rows = await trackersMatching(db, q)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(limit);
    return rows.map(toTrackerRecord);
  },

  async syncable(db: Queryable): Promise<TrackerRecord[]> {
    return (await db<TrackerRow>('trackers').where({ sync_enabled: true }).orderBy('id')).map(toTrackerRecord);
  },

  async ticketCounts(db: Queryable, ids: string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows = await db('tracker_tickets')
      .whereIn('tracker_id', ids)
      .groupBy('tracker_id')
      .select('tracker_id')
      .count({ n: '*' });
    return new Map(rows.map((r: Record<string, unknown>) => [r.tracker_id as string, Number(r.n)]));
  },

  async deleteMany(db: Queryable, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    return (await db('trackers').whereIn('id', ids).delete().returning('id')).map((r: { id: string }) => r.id);
  },

  async markSynced(db: Queryable, id: string, error: string | null): Promise<void> {
    await db('trackers').where({ id }).update({ last_sync_at: db.fn.now(), last_sync_error: error });
  },
};

export const ticketStore = {
  /** The ticket row for a key of a tracker, created when new (a key linked twice is one ticket). */
  async upsert(
    db: Queryable,
    trackerId: string,
    t: { key: string; url: string; status: string; closed: boolean },
  ): Promise<TicketRecord> {
    const [row] = await db<TicketRow>('tracker_tickets')
      .insert({
        id: randomUUID(),
        tracker_id: trackerId,
        key: t.key,
        url: t.url,
        status: t.status || null,
        closed: t.closed,
        synced_at: db.fn.now(),
      })
      .onConflict(['tracker_id', 'key'])
      .merge(['url', 'status', 'closed', 'synced_at'])
      .returning('*');
    return toTicketRecord(row);
  },

  async ofTracker(db: Queryable, trackerId: string): Promise<TicketRecord[]> {
    return (await db<TicketRow>('tracker_tickets').where({ tracker_id: trackerId }).orderBy('key')).map(toTicketRecord);
  },

  async get(db: Queryable, id: string): Promise<TicketRecord | undefined> {
    const row = await db<TicketRow>('tracker_tickets').where({ id }).first();
    return row && toTicketRecord(row);
  },

  /**
   * Records a status read from the tracker. Only the caller whose read changed the stored status
   * gets true, so concurrent syncs (replicas, schedule and request) move the issues once.
   */
  async recordStatus(
    db: Queryable,
    id: string,
    from: string | null,
    to: { status: string; closed: boolean },
  ): Promise<boolean> {
    const n = await db('tracker_tickets')
      .where({ id })
      .andWhereRaw('status is not distinct from ?', [from])
      .update({ status: to.status, closed: to.closed, synced_at: db.fn.now() });
    return n > 0;
  },

  async touch(db: Queryable, ids: string[]): Promise<void> {
    if (ids.length) await db('tracker_tickets').whereIn('id', ids).update({ synced_at: db.fn.now() });
  },

  async link(db: Queryable, issueIds: string[], ticketId: string): Promise<void> {
    if (!issueIds.length) return;
    await db('issue_tickets')
      .insert(issueIds.map((issue_id) => ({ issue_id, ticket_id: ticketId })))
      .onConflict('issue_id')
      .merge({ ticket_id: ticketId, linked_at: db.fn.now() });
  },

  async unlink(db: Queryable, issueId: string): Promise<void> {
    await db('issue_tickets').where({ issue_id: issueId }).delete();
  },

  /**
   * Forgets tickets no issue is linked to any more (those given, or every one after issues were
   * deleted): they are neither synced nor counted as use of their tracker.
   */
  async dropUnlinked(db: Queryable, ticketIds?: string[]): Promise<void> {
    const q = db('tracker_tickets as t').whereNotExists(
      db('issue_tickets as it').whereRaw('it.ticket_id = t.id').select(db.raw('1')),
    );
    if (ticketIds) q.whereIn('t.id', ticketIds);
    await q.delete();
  },

  async linkedIssues(db: Queryable, ticketId: string): Promise<string[]> {
    return (await db('issue_tickets').where({ ticket_id: ticketId }).select('issue_id')).map(
      (r: { issue_id: string }) => r.issue_id,
    );
  },

  /** The tickets of these issues (at most one each), keyed by issue id. */
  async ofIssues(db: Queryable, issueIds: string[]): Promise<Map<string, IssueTicket>> {
    if (!issueIds.length) return new Map();
    const rows = await db('issue_tickets as it')
      .join('tracker_tickets as t', 't.id', 'it.ticket_id')
      .join('trackers as tr', 'tr.id', 't.tracker_id')
      .whereRaw('it.issue_id = any(?::uuid[])', [pgArray(issueIds)])
      .select<(TicketRow & { issue_id: string; tracker_type: TrackerType })[]>(
        'it.issue_id',
        't.*',
        'tr.type as tracker_type',
      );
    return new Map(
      rows.map((r) => [r.issue_id, { ...toTicketRecord(r), issueId: r.issue_id, trackerType: r.tracker_type }]),
    );
  },

  /** The issues linked to any ticket of these trackers, for the history of a forced delete. */
  async linksOfTrackers(db: Queryable, trackerIds: string[]): Promise<{ issueId: string; key: string }[]> {
    if (!trackerIds.length) return [];
    const rows = await db('issue_tickets as it')
      .join('tracker_tickets as t', 't.id', 'it.ticket_id')
      .whereIn('t.tracker_id', trackerIds)
      .select<{ issue_id: string; key: string }[]>('it.issue_id', 't.key');
    return rows.map((r) => ({ issueId: r.issue_id, key: r.key }));
  },
};

/** Status changes of linked issues waiting for their tickets. */
export const pushStore = retryQueue(
  'tracker_pushes',
  'id::text, ticket_id, issue_id, to_status, actor, attempts',
  toPushRecord,
);

export const ticketClaimStore = {
  /**
   * Claims the issues for making their tickets and answers the ids it claimed: not those another
   * request holds, unless that claim is older than `staleSeconds` (its request died mid-way).
   */
  async claim(db: Queryable, issueIds: string[], staleSeconds: number): Promise<Set<string>> {
    if (issueIds.length === 0) return new Set();
    const { rows } = await db.raw<{ rows: { issue_id: string }[] }>(
      `insert into ticket_claims (issue_id) select unnest(?::uuid[])
       on conflict (issue_id) do update set claimed_at = now() where ticket_claims.claimed_at < now() - make_interval(secs => ?)
       returning issue_id`,
      [pgArray(issueIds), staleSeconds],
    );
    return new Set(rows.map((r) => r.issue_id));
  },

  async release(db: Queryable, issueIds: string[]): Promise<void> {
    if (issueIds.length > 0) await db('ticket_claims').whereIn('issue_id', issueIds).delete();
  },
};
