import { ErrorRecorder, IssuesClient, Logger, present, ServiceData } from '@bulwark/platform';
import { decodeJson, REPORT_EVENTS, topIssueJson, writeEvent } from '@bulwark/contracts';
import { periodStart } from './domain/period';
import { buildCompliance, isSeverity, remediationOf } from './domain/compliance';
import { buildSla } from './domain/sla';
import type { IssueDetail, ReportIssue, ReportSnapshot } from './domain/snapshot';
import { buildTrend, trendRange } from './domain/trend';
import { buildSnapshot } from './domain/summary';
import { ReportRecord, reportStore } from './store/reports';

/** A report's subject: its projects and the period of first detection it covers. */
export interface ReportSubject {
  id: string;
  name: string;
  type: string;
  author: string;
  period: string;
  allProjects: boolean;
  projectCodes: string[];
  createdAt: Date;
  /** An explicit start (a custom range, or the earlier interface's created_at range) instead of the period's. */
  from?: Date | null;
  /** A custom range's end; default: createdAt. */
  to?: Date | null;
}

/** Gathers a report's data from the issues service and freezes it as a snapshot. */
export async function collectSnapshot(
  issues: IssuesClient,
  s: ReportSubject,
  topLimit: number,
  progress: (percent: number) => Promise<void> = async () => undefined,
): Promise<ReportSnapshot> {
  const to = s.to ?? s.createdAt;
  const from = s.from !== undefined ? s.from : periodStart(s.period, to);
  const scope = {
    allProjects: s.allProjects,
    projectCodes: s.projectCodes,
    detectedFrom: from?.toISOString() ?? '',
    detectedTo: to.toISOString(),
  };
  const summary = await issues.summarizeIssues(scope);
  await progress(30);
  const top = await issues.topIssues({ scope, limit: topLimit });
  await progress(60);
  const snapshot = buildSnapshot(
    {
      id: s.id,
      name: s.name,
      type: s.type,
      author: s.author,
      created_at: s.createdAt.toISOString(),
      generated_at: new Date().toISOString(),
      period: s.period,
      from: from?.toISOString() ?? null,
      to: to.toISOString(),
      project_codes: s.projectCodes,
    },
    summary.groups.map((g) => ({ ...g, count: Number(g.count) })),
    summary.statuses,
    top.issuesJson.map((j) => decodeJson(topIssueJson, j, 'issues_json')),
    topLimit,
  );
  if (s.type === 'detailed') snapshot.details = await collectDetails(issues, snapshot.top_issues);
  if (s.type === 'compliance') {
    const { counts } = await issues.countByCwes(scope);
    const groups = counts.map((c) => ({
      cwes: c.cwes,
      severity: isSeverity(c.severity) ? c.severity : ('info' as const),
      open: c.open,
      library: c.library,
      slaState: c.slaState,
      count: Number(c.count),
    }));
    snapshot.compliance = buildCompliance(groups);
    snapshot.sla = buildSla(groups);
  }
  if (s.type === 'trend') {
    const range = trendRange(from, to);
    const trend = await issues.issueTrend({
      scope: { ...scope, detectedFrom: '', detectedTo: '' },
      intervalStarts: range.starts.map((d) => d.toISOString()),
      end: to.toISOString(),
    });
    snapshot.trend = buildTrend(
      range,
      to,
      trend.intervals.map((i) => ({
        start: i.start,
        opened: Number(i.opened),
        fixed: Number(i.fixed),
        open: Number(i.open),
      })),
      trend.fixTimes.map((f) => ({ severity: f.severity, fixed: Number(f.fixed), meanHours: f.meanHours })),
    );
  }
  await progress(90);
  return snapshot;
}

/** Newest history entries shown per issue of a detailed report. */
const HISTORY_LIMIT = 20;
const DETAILS_BATCH = 500;

async function collectDetails(issues: IssuesClient, listed: ReportIssue[]): Promise<Record<string, IssueDetail>> {
  const ids = listed.map((i) => i.id);
  const byId = new Map(listed.map((i) => [i.id, i]));
  const details: Record<string, IssueDetail> = {};
  for (let i = 0; i < ids.length; i += DETAILS_BATCH) {
    const batch = await issues.issueDetails({ ids: ids.slice(i, i + DETAILS_BATCH), historyLimit: HISTORY_LIMIT });
    for (const d of batch.issues) {
      details[d.id] = {
        description: d.description || null,
        remediation: remediationOf(present(byId.get(d.id), `listed issue ${d.id}`)),
        history: d.history.map((h) => ({
          at: h.at,
          actor: h.actor,
          field: h.field,
          old_value: h.oldValue || null,
          new_value: h.newValue || null,
          comment: h.comment || null,
        })),
      };
    }
  }
  return details;
}

const MAX_ATTEMPTS = 3;
const RETRY_DELAY_SECONDS = 10;

/**
 * Generates queued reports. A report is claimed under a lease; a process that dies mid-way leaves
 * it to be taken over when the lease runs out, and a failing attempt is retried, later each time, up to three attempts.
 */
export class ReportGenerator {
  constructor(
    private readonly deps: {
      data: ServiceData;
      issues: IssuesClient;
      log: Logger;
      errors: ErrorRecorder;
      opts: { leaseSeconds: number; topIssues: number };
    },
  ) {}

  /** Generates waiting reports one after another until none is left. */
  async drain(): Promise<void> {
    for (
      let report = await reportStore.claim(this.deps.data.db, this.deps.opts.leaseSeconds);
      report;
      report = await reportStore.claim(this.deps.data.db, this.deps.opts.leaseSeconds)
    ) {
      await this.generate(report);
    }
  }

  private async generate(r: ReportRecord): Promise<void> {
    const started = Date.now();
    const subject: ReportSubject = {
      id: r.id,
      name: r.name,
      type: r.type,
      author: r.author,
      period: r.period,
      allProjects: r.allProjects,
      projectCodes: r.projectCodes,
      createdAt: new Date(r.createdAt),
      ...(r.period === 'custom'
        ? {
            from: r.rangeFrom === null ? null : new Date(r.rangeFrom),
            to: r.rangeTo === null ? null : new Date(r.rangeTo),
          }
        : {}),
    };
    try {
      const snapshot = await collectSnapshot(this.deps.issues, subject, this.deps.opts.topIssues, async (percent) => {
        if (!(await reportStore.progress(this.deps.data.db, r.id, r.attempts, percent, this.deps.opts.leaseSeconds)))
          throw new LeaseLost();
      });
      await this.deps.data.transaction(async (trx) => {
        if (!(await reportStore.finish(trx, r.id, r.attempts, { snapshot }))) return;
        await writeEvent(trx, REPORT_EVENTS.reportReady, r.id, {
          id: r.id,
          name: r.name,
          type: r.type,
          author: r.author,
          project_codes: r.projectCodes,
        });
      });
      this.deps.log.info('report generated', {
        reportId: r.id,
        issues: snapshot.totals.issues,
        ms: Date.now() - started,
      });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      const error = (err as Error).message;
      if (r.attempts < MAX_ATTEMPTS) {
        this.deps.log.warn('report generation failed; will retry', { reportId: r.id, attempt: r.attempts, error });
        await reportStore.requeue(this.deps.data.db, r.id, r.attempts, RETRY_DELAY_SECONDS * r.attempts);
        return;
      }
      this.deps.log.error('report generation failed', { reportId: r.id, attempt: r.attempts, error });
      await this.deps.data.transaction(async (trx) => {
        if (!(await reportStore.finish(trx, r.id, r.attempts, { error }))) return;
        await writeEvent(trx, REPORT_EVENTS.reportFailed, r.id, {
          id: r.id,
          name: r.name,
          type: r.type,
          author: r.author,
          error,
        });
        await this.deps.errors.recordError(
          {
            code: 'report.failed',
            level: 'error',
            subject: r.id,
            request_id: null,
            message: `Report "${r.name}" (${r.id}) of ${r.author} could not be generated after ${r.attempts} attempts: ${error}`,
            message_ru: `Отчёт «${r.name}» (${r.id}) пользователя ${r.author} не сформирован после попыток: ${r.attempts}; ошибка: ${error}`,
            details: { type: r.type, author: r.author, attempts: r.attempts },
          },
          trx,
        );
      });
    }
  }
}

/** Another process took the report over (this one was too slow to renew its lease). */
class LeaseLost extends Error {}
