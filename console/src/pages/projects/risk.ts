import { api } from '../../api';
import type { IssueCountGroups, IssueStatus, Page, ScanResult, Severity } from '../../types';
import { CLOSED_STATUS_IDS } from '../Dashboard';
import { ORIGINALS_ONLY } from '../issue-list/view';

export const TREND_WEEKS = 8;

/** The open statuses' ids (every status but the built-in closing ones), as the dashboard counts them. */
export const openStatusIds = (statuses: IssueStatus[]) =>
  statuses.filter((s) => !CLOSED_STATUS_IDS.has(s.id)).map((s) => s.id);

export type SeverityCounts = Partial<Record<Severity, number>>;

/** Open issues (originals only) by severity for each project, in one request (projects without open issues are absent). */
export async function openBySeverity(
  statuses: IssueStatus[],
  projectCode?: string,
): Promise<Map<string, SeverityCounts>> {
  const r = await api<IssueCountGroups>('GET', '/issues/count/grouped', undefined, {
    group_by: ['project_code', 'severity'],
    'filter[status]': openStatusIds(statuses),
    ...ORIGINALS_ONLY,
    ...(projectCode ? { 'filter[project_code]': projectCode } : {}),
  });
  const out = new Map<string, SeverityCounts>();
  for (const g of r.groups) {
    if (!g.project_code || !g.severity) continue;
    const counts = out.get(g.project_code) ?? {};
    counts[g.severity] = g.count ?? 0;
    out.set(g.project_code, counts);
  }
  return out;
}

/** Open issues (originals only) at the end of each of the last eight weeks, oldest first (the dashboard's trend, for one project). */
export const openTrend = (projectCode: string) =>
  api<IssueCountGroups>('GET', '/issues/count/grouped', undefined, {
    group_by: 'week',
    weeks: TREND_WEEKS,
    'filter[project_code]': projectCode,
    ...ORIGINALS_ONLY,
  }).then((r) => r.groups);

/**
 * The newest gate verdict of each layer (the one its lock follows), from the latest scans with one,
 * newest first: by layer id.
 */
export async function newestVerdicts(projectCode?: string): Promise<Map<string, ScanResult>> {
  const scans = await api<Page<ScanResult>>('GET', '/scan-results', undefined, {
    limit: 1000,
    ...(projectCode ? { 'filter[project_code]': projectCode } : {}),
  });
  const newest = new Map<string, ScanResult>();
  for (const s of scans.items) if (s.quality_gate && !newest.has(s.layer_id)) newest.set(s.layer_id, s);
  return newest;
}
