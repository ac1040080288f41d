import { CatalogClient, errorMessage, ErrorRecorder, Logger, ServiceData, unlessNotFound } from '@bulwark/platform';
import { ISSUE_SEVERITIES } from '@bulwark/contracts';
import type { Dispatcher } from 'undici';
import { retryBackoffSeconds } from '../domain/retry-backoff';
import { OPEN_STATUSES } from '../domain/statuses';
import { DecorationRecord, pullRequestDecorationStore, StoredVerdict } from '../store/pull-request-decorations';
import type { GateState, PullRequestRef } from './platform';
import { connectPlatform, isPlatformName } from './platforms';
import { repositoryOf } from './repository';
import {
  DecoratedIssue,
  MAX_LISTED,
  PullRequestSummary,
  renderReviewComment,
  renderSummary,
  reviewMarker,
} from './summary';

export interface DecorationSettings {
  batch: number;
  maxAttempts: number;
  /** The console's address, the base of the link in each comment. */
  consoleUrl: string;
}

/** Most review comments one scan posts: more would bury the pull request. */
const MAX_REVIEW_COMMENTS = 20;

const failedConditions = (v: StoredVerdict | null) =>
  (v?.conditions ?? [])
    .filter((c) => !c.passed)
    .map(
      (c) =>
        `${c.quality_gate_name}: ${c.condition_type}${c.condition_value ? ` ${c.condition_value}` : ''} is ${c.measured}, must be ${c.operator.replace(/_/g, ' ')} ${c.value}`,
    );

const gateState = (v: StoredVerdict | null): GateState => (v?.status === 'failed' ? 'failure' : 'success');

/** Whether an issue of `severity` is at or above `least` (none: no issue is). */
const atLeast = (severity: string, least: string) => {
  const rank = (s: string) => ISSUE_SEVERITIES.indexOf(s as (typeof ISSUE_SEVERITIES)[number]);
  return least !== 'none' && rank(severity) >= 0 && rank(severity) <= rank(least);
};

/** The new and fixed issues of a summary, and what they were compared with. */
type Comparison = Pick<PullRequestSummary, 'base' | 'newIssues' | 'fixedIssues' | 'newTotal' | 'fixedTotal'>;

/** Thrown for a source whose decoration cannot work as set: retrying would not help. */
class DecorationUnusable extends Error {}

/**
 * Delivers the pull request decorations that ingestion queued (an outbox): each outside any
 * transaction, at least once, retried with backoff while the platform refuses or cannot be reached,
 * and given up after `maxAttempts` (recorded in the error log). The platform's answers never touch the
 * scan or its gate; a rerun finds its comments by their markers, so a delivery repeated changes nothing.
 */
export class PullRequestDecorations {
  constructor(
    private readonly deps: {
      data: ServiceData;
      catalog: CatalogClient;
      /** Every call to a platform goes through it: the outbound address policy. */
      dispatcher: Dispatcher;
      errors: ErrorRecorder;
      log: Logger;
      settings: DecorationSettings;
    },
  ) {}

  /** Delivers the due decorations; answers how many were tried. */
  async deliverDue(): Promise<number> {
    const { data, settings } = this.deps;
    await pullRequestDecorationStore.supersede(data.db);
    // A delivery outliving its lease may be made twice; the markers make the second change nothing.
    const due = await pullRequestDecorationStore.claim(data.db, settings.batch, 120);
    for (const d of due) await this.deliverOne(d);
    return due.length;
  }

  private async deliverOne(d: DecorationRecord): Promise<void> {
    const { data, settings } = this.deps;
    try {
      const outcome = await this.decorate(d);
      await pullRequestDecorationStore.done(data.db, d.id, outcome);
      this.deps.log.info('pull request decorated', { scanId: d.scanId, pullRequest: d.prNumber, outcome });
    } catch (err) {
      const giveUp = err instanceof DecorationUnusable || d.attempts >= settings.maxAttempts;
      this.recordFailure(d, err, giveUp);
      await pullRequestDecorationStore.failed(
        data.db,
        d.id,
        errorMessage(err),
        giveUp ? null : retryBackoffSeconds(d.attempts),
      );
    }
  }

  /** Posts the summary, the commit status and the review comments; answers the outcome to store. */
  private async decorate(d: DecorationRecord): Promise<string> {
    const { catalog, settings } = this.deps;
    const source = await catalog.getSourceDecoration({ sourceId: d.sourceId }).catch(unlessNotFound);
    if (!source) return 'not_configured';
    if (!isPlatformName(source.platform)) throw new DecorationUnusable(`unknown platform ${source.platform}`);
    const repository = repositoryOf(source.repositoryUrl, source.platform);
    if (!repository) throw new DecorationUnusable('the source URL names no repository path');
    const pr: PullRequestRef = {
      repository: repository.path,
      webUrl: repository.webUrl,
      number: d.prNumber,
      headSha: d.headSha ?? '',
    };
    const consoleUrl = `${settings.consoleUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(d.projectCode)}`;
    const platform = await connectPlatform(source.platform, source.apiUrl, source.token, this.deps.dispatcher);
    const compared = await this.compareWithBase(d);
    const failed = failedConditions(d.verdict);
    await platform.upsertSummary(
      pr,
      renderSummary({
        verdict: d.verdict?.status ?? 'none',
        failedConditions: failed,
        ...compared,
        consoleUrl,
        diffLink: (path, line) => platform.diffLink(pr, path, line),
      }),
    );
    // Without the head commit there is no commit to give a status or review comments to.
    if (!d.headSha) return 'commented';
    await platform.setStatus(
      pr,
      gateState(d.verdict),
      d.verdict === null
        ? 'No quality gate'
        : d.verdict.status === 'failed'
          ? `Quality gate failed: ${failed.join('; ')}`
          : 'Quality gate passed',
      consoleUrl,
    );
    const reviewed = compared.newIssues
      .filter((i): i is DecoratedIssue & { path: string; line: number } => i.path !== null && i.line !== null)
      .filter((i) => atLeast(i.severity, source.reviewMinSeverity))
      .slice(0, MAX_REVIEW_COMMENTS)
      .map((i) => ({ marker: reviewMarker(i.id), body: renderReviewComment(i), path: i.path, line: i.line }));
    if (reviewed.length) await platform.addReviewComments(pr, reviewed);
    return 'decorated';
  }

  /**
   * The new and fixed issues against the base: the latest scan of the same check outside any pull
   * request. None without such a scan: the comment says so rather than guess.
   */
  private async compareWithBase(d: DecorationRecord): Promise<Comparison> {
    const { data } = this.deps;
    const branch = d.baseBranch ?? 'the base branch';
    const baseScan = await pullRequestDecorationStore.baseScan(data.db, d.checkId);
    if (!baseScan) return { base: { branch, scanned: false }, newIssues: [], fixedIssues: [] };
    const [newIssues, fixedIssues] = await Promise.all([
      pullRequestDecorationStore.newIssues(data.db, d, OPEN_STATUSES, MAX_LISTED),
      pullRequestDecorationStore.fixedIssues(data.db, d, MAX_LISTED),
    ]);
    return {
      base: { branch, scanned: true },
      newIssues: newIssues.listed,
      fixedIssues: fixedIssues.listed,
      newTotal: newIssues.total,
      fixedTotal: fixedIssues.total,
    };
  }

  private recordFailure(d: DecorationRecord, err: unknown, gaveUp: boolean): void {
    const reason = errorMessage(err);
    this.deps.log.warn('pull request decoration failed', {
      event: 'integration_failure',
      integration: 'pull_request_decoration',
      scanId: d.scanId,
      sourceId: d.sourceId,
      pullRequest: d.prNumber,
      attempts: d.attempts,
      gave_up: gaveUp,
      error: reason,
    });
    // Written at once and never thrown (see ErrorRecorder): a failing error log must not stop the deliveries.
    void this.deps.errors.recordError({
      code: gaveUp ? 'decoration.gave_up' : 'decoration.failed',
      level: gaveUp ? 'error' : 'warning',
      message: `Pull request #${d.prNumber} of source ${d.sourceId}: the verdict of scan ${d.scanId} was not posted${gaveUp ? ' and will not be retried' : ''}: ${reason}`,
      message_ru: `Pull request #${d.prNumber} источника ${d.sourceId}: вердикт сканирования ${d.scanId} не опубликован${gaveUp ? ', повторов больше не будет' : ''}: ${reason}`,
      subject: d.sourceId,
      details: { scan_id: d.scanId, pull_request: d.prNumber, attempts: d.attempts },
    });
  }
}
