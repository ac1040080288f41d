import type { Queryable } from '@bulwark/platform';

/**
 * A table is analyzed when a transaction wrote more rows to it than this floor plus this fraction of
 * the rows its statistics know (autovacuum's rule, with a floor high enough that small scans pay
 * nothing).
 */
export const ANALYZE_FLOOR = 1000;
export const ANALYZE_FRACTION = 0.1;

export const tableStatistics = {
  /**
   * Analyzes the tables of this schema the open transaction changed in bulk, and returns their names.
   * Run last before the commit: ANALYZE samples the transaction's own uncommitted rows, so the planner
   * statistics are those of the committed tables from the first query after it, instead of whenever
   * autovacuum gets there. The rows written come from pg_stat_xact_user_tables, which may also hold
   * the same connection's writes of the last second not yet flushed to the shared statistics: at worst
   * a small transaction right after a bulk one analyzes again.
   */
  async refreshChangedInBulk(trx: Queryable): Promise<string[]> {
    const { rows } = await trx.raw<{ rows: { relname: string }[] }>(
      `select x.relname from pg_stat_xact_user_tables x join pg_class c on c.oid = x.relid
         where x.schemaname = current_schema()
           and x.n_tup_ins + x.n_tup_upd + x.n_tup_del > ? + ? * greatest(c.reltuples, 0)
         order by x.relname`,
      [ANALYZE_FLOOR, ANALYZE_FRACTION],
    );
    const tables = rows.map((r) => r.relname);
    // In name order, so two ingestions analyzing the same tables wait for each other, never deadlock.
    if (tables.length > 0) await trx.raw(`analyze ${tables.map(() => '??').join(', ')}`, tables);
    return tables;
  },
};
