import { randomUUID } from 'node:crypto';
import { iso, Queryable, queryPage, unnestRows } from '@bulwark/platform';
import type { ViaClient } from '@bulwark/contracts';
import type { ChangeReason } from '../domain/change-reason';

export type ActorKind = 'user' | 'scan' | 'security_rule' | 'system' | 'tracker';

/** A change of an issue, as recorded (`at` defaults to the time of the write). */
export interface HistoryEntry {
  issueId: string;
  actorKind: ActorKind;
  actor: string;
  field: string;
  oldValue: string | null;
  newValue: string | null;
  comment: string | null;
  /** Why an ingestion made the change; absent for people's and rules' own changes. */
  reason?: ChangeReason;
  at?: string;
  /** The client a person acted through (mcp: an AI assistant); absent: directly. */
  via?: ViaClient | null;
}

/** A recorded change, with its id and time. */
export interface HistoryRecord {
  id: string;
  at: string;
  actorKind: string;
  actor: string;
  field: string;
  oldValue: string | null;
  newValue: string | null;
  comment: string | null;
  via: ViaClient | null;
  reason: ChangeReason | null;
}

interface HistoryRow {
  id: string | number;
  at: Date;
  actor_kind: string;
  actor: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  comment: string | null;
  via: ViaClient | null;
  reason: ChangeReason | null;
}

export interface CommentRecord {
  id: string;
  issueId: string;
  author: string;
  message: string;
  createdAt: string;
}

interface CommentRow {
  id: string;
  issue_id: string;
  author: string;
  message: string;
  created_at: Date;
}

const toEntryRow = (e: HistoryEntry) => ({
  issue_id: e.issueId,
  actor_kind: e.actorKind,
  actor: e.actor,
  field: e.field,
  old_value: e.oldValue,
  new_value: e.newValue,
  comment: e.comment,
  reason: e.reason ? JSON.stringify(e.reason) : null,
  at: e.at,
  via: e.via ?? null,
});

const BATCH = 2000;

export const historyStore = {
  /**
   * Records changes. A status change of an issue linked to a ticket also queues its push to the
   * tracker here, in the same transaction: every path that changes a status (people, scans, rules)
   * writes history, so none can forget the ticket. Changes read from the tracker are not pushed back.
   */
  async add(db: Queryable, entries: HistoryEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += BATCH) {
      const v = unnestRows(entries.slice(i, i + BATCH).map(toEntryRow), {
        issue_id: 'uuid',
        actor_kind: 'text',
        actor: 'text',
        field: 'text',
        old_value: 'text',
        new_value: 'text',
        comment: 'text',
        reason: 'text',
        at: 'timestamptz',
        via: 'text',
      });
      await db.raw(
        `insert into issue_history (issue_id, actor_kind, actor, field, old_value, new_value, comment, reason, at, via)
         select issue_id, actor_kind, actor, field, old_value, new_value, comment, reason::jsonb, coalesce(at, now()), via from ${v.sql}`,
        v.bindings,
      );
    }
    const pushed = entries.filter((e) => e.field === 'status' && e.actorKind !== 'tracker' && e.newValue !== null);
    for (let i = 0; i < pushed.length; i += BATCH) {
      const v = unnestRows(
        pushed.slice(i, i + BATCH).map((e) => ({ issue_id: e.issueId, to_status: Number(e.newValue), actor: e.actor })),
        { issue_id: 'uuid', to_status: 'int4', actor: 'text' },
      );
      await db.raw(
        `insert into tracker_pushes (ticket_id, issue_id, to_status, actor)
         select it.ticket_id, v.issue_id, v.to_status, v.actor from ${v.sql} join issue_tickets it on it.issue_id = v.issue_id`,
        v.bindings,
      );
    }
  },

  async list(db: Queryable, issueId: string, q: { page: number; limit: number; users?: string[]; kinds?: string[] }) {
    const base = db('issue_history').where('issue_id', issueId);
    if (q.users?.length) base.whereIn('actor', q.users).andWhere('actor_kind', 'user');
    if (q.kinds?.length) base.whereIn('actor_kind', q.kinds);
    const { rows, total } = await queryPage<HistoryRow>(base, q, [
      { column: 'at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
    return {
      total,
      items: rows.map((r): HistoryRecord => ({
        id: String(r.id),
        at: iso(r.at),
        actorKind: r.actor_kind,
        actor: r.actor,
        field: r.field,
        oldValue: r.old_value,
        newValue: r.new_value,
        comment: r.comment,
        via: r.via,
        reason: r.reason,
      })),
    };
  },
};

export const commentStore = {
  async add(db: Queryable, issueId: string, author: string, message: string): Promise<CommentRecord> {
    const id = randomUUID();
    const [created] = await db('issue_comments')
      .insert({ id, issue_id: issueId, author, message })
      .returning<{ created_at: Date }[]>('created_at');
    return { id, issueId, author, message, createdAt: iso(created.created_at) };
  },

  async list(db: Queryable, issueId: string, q: { page: number; limit: number }) {
    const { rows, total } = await queryPage<CommentRow>(db('issue_comments').where('issue_id', issueId), q, [
      { column: 'created_at' },
      { column: 'id' },
    ]);
    return {
      total,
      items: rows.map((r): CommentRecord => ({
        id: r.id,
        issueId: r.issue_id,
        author: r.author,
        message: r.message,
        createdAt: iso(r.created_at),
      })),
    };
  },
};
