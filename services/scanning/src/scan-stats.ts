import { canSeeProject, invalid, isUuid, notFound, Principal, Queryable } from '@bulwark/platform';
import type { Checks } from './checks';
import { comparisonBase } from './domain/comparison';
import type { CheckRecord } from './store/checks';
import { scanStore, ScanRecord } from './store/scans';
import { statsStore } from './store/stats';

/** Statistics of scan results, following each check's comparison mode. */
export class ScanStats {
  constructor(
    private readonly db: Queryable,
    private readonly checks: Checks,
  ) {}

  private async completed(principal: Principal, id: string, field = 'result_id'): Promise<ScanRecord> {
    const scan = isUuid(id) ? await scanStore.get(this.db, id) : undefined;
    if (!scan || !canSeeProject(principal, scan.projectCode)) throw notFound(`Scan result ${id}`);
    if (scan.state !== 'completed')
      throw invalid(`Scan result ${id} is ${scan.state}: only completed results have statistics`, [
        { field, problem: `is ${scan.state}` },
      ]);
    return scan;
  }

  async forResult(principal: Principal, resultId: string) {
    const scan = await this.completed(principal, resultId);
    return this.statsOf(scan, await this.checks.visible(principal, scan.checkId));
  }

  private async statsOf(scan: ScanRecord, check: CheckRecord) {
    const previous = await statsStore.previous(this.db, scan.checkId, scan.createdAt);
    const base = comparisonBase(check.comparison, { id: scan.id, createdAt: scan.createdAt }, previous);
    const totals = await statsStore.totals(this.db, scan.id);
    if (!base) {
      return {
        scan_result_id: scan.id,
        compared_with: null,
        comparison_mode: check.comparison.mode,
        total: totals,
        new: totals,
        unchanged: { count: 0, by_severity: zero(totals) },
        fixed: { count: 0, by_severity: zero(totals) },
      };
    }
    return {
      scan_result_id: scan.id,
      compared_with: base,
      comparison_mode: check.comparison.mode,
      total: totals,
      ...(await statsStore.versus(this.db, scan.id, base)),
    };
  }

  async history(principal: Principal, checkId: string, q: { page: number; limit: number }) {
    const check = await this.checks.visible(principal, checkId);
    const page = await scanStore.list(this.db, {
      page: q.page,
      limit: q.limit,
      checkId,
      state: 'completed',
      projects: principal.projects,
    });
    const items = [];
    for (const s of page.items) {
      const stats = await this.statsOf(s, check);
      items.push({
        scan_result_id: s.id,
        created_at: s.createdAt,
        finished_at: s.finishedAt,
        findings_count: s.findingsCount,
        severity_counts: s.severityCounts,
        compared_with: stats.compared_with,
        new: stats.new.count,
        fixed: stats.fixed.count,
        unchanged: stats.unchanged.count,
      });
    }
    return { items, total: page.total, page: q.page, limit: q.limit };
  }

  async compare(principal: Principal, first: string, second: string) {
    const a = await this.completed(principal, first, 'first');
    const b = await this.completed(principal, second, 'second');
    const diff = await statsStore.versus(this.db, b.id, a.id);
    return {
      first: { scan_result_id: a.id, created_at: a.createdAt, total: await statsStore.totals(this.db, a.id) },
      second: { scan_result_id: b.id, created_at: b.createdAt, total: await statsStore.totals(this.db, b.id) },
      only_in_second: diff.new,
      only_in_first: diff.fixed,
      in_both: diff.unchanged,
    };
  }
}

function zero(b: { by_severity: Record<string, number> }) {
  return Object.fromEntries(Object.keys(b.by_severity).map((k) => [k, 0]));
}
