import type { Queryable } from '@bulwark/platform';
import { SEVERITIES } from '@bulwark/findings';
import { findingRefStore } from './finding-refs';
import { findingStore } from './findings';

export interface SeverityBreakdown {
  count: number;
  by_severity: Record<string, number>;
}

function breakdown(rows: { severity: string; n: string | number }[]): SeverityBreakdown {
  const by = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<string, number>;
  for (const r of rows) by[r.severity] = Number(r.n);
  return { count: Object.values(by).reduce((a, b) => a + b, 0), by_severity: by };
}

/** Findings of `scan` that `other` does not have (by fingerprint), per severity. */
async function onlyIn(db: Queryable, scan: string, other: string): Promise<SeverityBreakdown> {
  [scan, other] = await Promise.all([findingStore.holder(db, scan), findingStore.holder(db, other)]);
  const rows = await findingRefStore
    .absentFrom(db, db.from(findingRefStore.findingsOf(db, scan, 'a')), 'a', other)
    .select('a.severity')
    .count({ n: '*' })
    .groupBy('a.severity');
  return breakdown(rows as { severity: string; n: string }[]);
}

export const statsStore = {
  async totals(db: Queryable, scan: string): Promise<SeverityBreakdown> {
    const rows = await db
      .from(findingRefStore.findingsOf(db, await findingStore.holder(db, scan), 'f'))
      .select('severity')
      .count({ n: '*' })
      .groupBy('severity');
    return breakdown(rows as { severity: string; n: string }[]);
  },

  /** new = only in `scan`, fixed = only in `base`, unchanged = in both. */
  async versus(
    db: Queryable,
    scan: string,
    base: string,
  ): Promise<{ new: SeverityBreakdown; fixed: SeverityBreakdown; unchanged: SeverityBreakdown }> {
    const [added, fixed, total] = await Promise.all([
      onlyIn(db, scan, base),
      onlyIn(db, base, scan),
      this.totals(db, scan),
    ]);
    const unchanged = Object.fromEntries(
      Object.entries(total.by_severity).map(([s, n]) => [s, n - (added.by_severity[s] ?? 0)]),
    );
    return { new: added, fixed, unchanged: { count: total.count - added.count, by_severity: unchanged } };
  },

  /** The completed result of the same check just before `scan`. */
  async previous(
    db: Queryable,
    checkId: string,
    createdAt: string,
  ): Promise<{ id: string; createdAt: string } | undefined> {
    const row = await db('scans')
      .where({ check_id: checkId, state: 'completed' })
      .where('created_at', '<', createdAt)
      .orderBy('created_at', 'desc')
      .first<{ id: string; created_at: Date } | undefined>();
    return row ? { id: row.id, createdAt: new Date(row.created_at).toISOString() } : undefined;
  },
};
