import { randomUUID } from 'node:crypto';
import { iso, Queryable, unnestRows } from '@bulwark/platform';

export type ActorKind = 'user' | 'scan' | 'security_rule' | 'system' | 'tracker';

export interface HistoryEntry {
  issue_id: string;
  actor_kind: ActorKind;
  actor: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  comment: string | null;
  at?: string;
}

const BATCH = 2000;

export const historyStore = {
  /**
   * Records changes. A status change of an issue linked to a ticket also queues its push to the
   * tracker here, in the same transaction: every path that changes a status (people, scans, rules)
   * writes history, so none can forget the ticket. Changes read from the tracker are not pushed back.
   */
  async add(db: Queryable, entries: HistoryEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += BATCH) {
      const v = unnestRows(entries.slice(i, i + BATCH), {
        issue_id: 'uuid',
        actor_kind: 'text',
        actor: 'text',
        field: 'text',
        old_value: 'text',
        new_value: 'text',
        comment: 'text',
        at: 'timestamptz',
      });
      await db.raw(
        `insert into issue_history (issue_id, actor_kind, actor, field, old_value, new_value, comment, at)
         select issue_id, actor_kind, actor, field, old_value, new_value, comment, coalesce(at, now()) from ${v.sql}`,
        v.bindings,
      );
    }
    const pushed = entries.filter((e) => e.field === 'status' && e.actor_kind !== 'tracker' && e.new_value !== null);
    for (let i = 0; i < pushed.length; i += BATCH) {
      const v = unnestRows(
        pushed
          .slice(i, i + BATCH)
          .map((e) => ({ issue_id: e.issue_id, to_status: Number(e.new_value), actor: e.actor })),
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
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = await base
      .orderBy([
        { column: 'at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .offset((q.page - 1) * q.limit)
      .limit(q.limit);
    return {
      total: Number(n),
      items: rows.map((r: Record<string, unknown>) => ({
        id: String(r.id),
        at: iso(r.at as Date)!,
        actor_kind: r.actor_kind as string,
        actor: r.actor as string,
        field: r.field as string,
        old_value: r.old_value as string | null,
        new_value: r.new_value as string | null,
        comment: r.comment as string | null,
      })),
    };
  },
};

export const commentStore = {
  async add(db: Queryable, issueId: string, author: string, message: string) {
    const row = { id: randomUUID(), issue_id: issueId, author, message };
    const [created] = await db('issue_comments').insert(row).returning<{ created_at: Date }[]>('created_at');
    return { ...row, created_at: iso(created.created_at)! };
  },

  async list(db: Queryable, issueId: string, q: { page: number; limit: number }) {
    const [{ n }] = await db('issue_comments').where('issue_id', issueId).count({ n: '*' });
    const rows = await db('issue_comments')
      .where('issue_id', issueId)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .offset((q.page - 1) * q.limit)
      .limit(q.limit);
    return {
      total: Number(n),
      items: rows.map((r: Record<string, unknown>) => ({
        id: r.id as string,
        issue_id: r.issue_id as string,
        author: r.author as string,
        message: r.message as string,
        created_at: iso(r.created_at as Date)!,
      })),
    };
  },
};
