import { Db, isUuid, ServiceImpl } from '@bulwark/platform';
import type { issuesV1 } from '@bulwark/proto';
import { NOT_COUNTED_STATUSES } from '../domain/statuses';
import type { IngestionDryRun } from '../ingestion/dry-run';
import { IssueFilter, issueStore } from '../store/issues/issue-store';
import { reportQueries } from '../store/report-queries';
import { statusStore } from '../store/settings';

const MAX_TOP = 10_000;
const MAX_DETAILS = 1_000;
const MAX_INTERVALS = 400;

/** The store's filter of a report scope: its projects and its period of first detection. */
function scopeFilter(scope: issuesV1.IssueScope | undefined): IssueFilter {
  return {
    projects: scope?.allProjects ? null : (scope?.projectCodes ?? []),
    detectedFrom: scope?.detectedFrom || undefined,
    detectedTo: scope?.detectedTo || undefined,
  };
}

export function issuesGrpc(db: Db, dryRun: IngestionDryRun): ServiceImpl<typeof issuesV1.IssuesServiceService> {
  return {
    async dryRunIngestion(chunks) {
      return { outcomeJson: JSON.stringify(await dryRun.run(chunks)) };
    },

    async summarizeIssues(scope) {
      const [groups, statuses] = await Promise.all([
        issueStore.summarize(db, scopeFilter(scope)),
        statusStore.list(db),
      ]);
      return {
        groups: groups.map((g) => ({
          projectCode: g.projectCode,
          toolName: g.toolName,
          category: g.category,
          severity: g.severity,
          statusId: g.statusId,
          open: !NOT_COUNTED_STATUSES.includes(g.statusId),
          count: g.count,
        })),
        statuses: statuses.map((s) => ({ id: s.id, name: s.nameEn })),
      };
    },

    async topIssues(req) {
      const limit = Math.min(MAX_TOP, Math.max(0, req.limit));
      const [rows, statuses] = await Promise.all([
        issueStore.topOpen(db, scopeFilter(req.scope), limit),
        statusStore.list(db),
      ]);
      const names = new Map(statuses.map((s) => [s.id, s.nameEn]));
      return {
        issuesJson: rows.map((r) =>
          JSON.stringify({
            id: r.id,
            project_code: r.projectCode,
            tool_name: r.toolName,
            category: r.category,
            title: r.title,
            severity: r.severity,
            status: names.get(r.statusId) ?? String(r.statusId),
            cve: r.cve,
            cwes: r.cwes,
            file_path: r.filePath,
            start_line: r.startLine,
            lib_name: r.libName,
            lib_version: r.libVersion,
            cvss: r.cvssMax,
            first_detected_at: r.firstDetectedAt,
            last_detected_at: r.lastDetectedAt,
          }),
        ),
      };
    },

    async countByCwes(scope) {
      const f = scopeFilter(scope);
      const rows = await reportQueries.countByCwes(db, f.projects, f.detectedFrom, f.detectedTo);
      return {
        counts: rows.map((r) => ({
          cwes: r.cwes,
          severity: r.severity,
          open: r.open,
          library: r.library,
          slaState: r.sla_state,
          count: r.n,
        })),
      };
    },

    async issueTrend(req) {
      const starts = req.intervalStarts.slice(0, MAX_INTERVALS).filter((s) => !Number.isNaN(Date.parse(s)));
      if (starts.length === 0 || Number.isNaN(Date.parse(req.end))) return { intervals: [], fixTimes: [] };
      const projects = scopeFilter(req.scope).projects;
      const [intervals, fixTimes] = [
        await reportQueries.trend(db, { projects, excludeDuplicates: true }, starts, req.end),
        await reportQueries.fixTimes(db, projects, starts[0], req.end),
      ];
      return { intervals, fixTimes };
    },

    async issueDetails(req) {
      const ids = req.ids.filter(isUuid).slice(0, MAX_DETAILS);
      if (ids.length === 0) return { issues: [] };
      const [rows, statuses] = [
        await reportQueries.details(db, ids, Math.min(100, Math.max(0, req.historyLimit))),
        await statusStore.list(db),
      ];
      const names = new Map(statuses.map((s) => [String(s.id), s.nameEn]));
      const shown = (field: string, value: string | null) =>
        value === null ? '' : field === 'status' ? (names.get(value) ?? value) : value;
      return {
        issues: rows.map((r) => ({
          id: r.id,
          description: r.description ?? '',
          history: r.history.map((h) => ({
            at: h.at,
            actor: h.actor,
            field: h.field,
            oldValue: shown(h.field, h.oldValue),
            newValue: shown(h.field, h.newValue),
            comment: h.comment ?? '',
          })),
        })),
      };
    },
  };
}
