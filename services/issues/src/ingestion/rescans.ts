import type { Logger, Queryable, Trx } from '@bulwark/platform';
import { statusSetByScan } from '../domain/chunk-plan';
import { STATUS, statusOnDetection } from '../domain/statuses';
import { HistoryEntry, historyStore } from '../store/history';
import { IssueStatus, issueStore } from '../store/issues/issue-store';
import { ingestedStore, PreviousIngestion } from '../store/settings';
import type { DiffSides, ScanCompleted } from './input';
import { ChunkContext, IngestSummary, keyFindings, prepareChunk } from './matching';

/**
 * A rescan ingested set-wise: as an unchanged re-import of the check's previous scan (the same
 * findings), or as its diff against it (only the findings that changed are matched one by one). Each
 * decision is made twice, on the state committed before the transaction (what to read) and in it.
 */
export class Rescans {
  constructor(private readonly deps: { log: Logger; chunkSize: number }) {}

  /**
   * The check's previous ingested scan when this one is an unchanged re-import of it: the same
   * findings, keyed the same way, and every issue it detected still last detected by it.
   */
  async unchangedPrevious(db: Queryable, scan: ScanCompleted, keying: string): Promise<PreviousIngestion | undefined> {
    if (!scan.findings_digest) return undefined;
    const previous = await ingestedStore.previous(db, scan.check_id, scan.scan_result_id);
    if (
      !previous ||
      previous.findingsDigest !== scan.findings_digest ||
      previous.keying !== keying ||
      previous.issues === null
    )
      return undefined;
    const detected = await issueStore.countDetectedBy(db, previous.scanId);
    return detected === previous.issues ? previous : undefined;
  }

  /**
   * An unchanged re-import: the check's previous ingested scan had the same findings, keyed the same
   * way, and every issue it detected is still last detected by it. Then each finding matches exactly
   * the issue it matched then, and the whole scan is a set-wise re-detection of those issues with
   * what the per-finding path would write. Returns how many issues it detected, or undefined when
   * the scan is not such a re-import (the findings are then read and matched one by one).
   */
  async redetectUnchanged(
    trx: Trx,
    ctx: ChunkContext,
    keying: string,
    summary: IngestSummary,
  ): Promise<number | undefined> {
    const { scan } = ctx;
    const previous = await this.unchangedPrevious(trx, scan, keying);
    if (!previous || previous.issues === null) return undefined;
    const detected = previous.issues;
    await this.redetectSetWise(trx, ctx, previous.scanId, new Set(), summary);
    summary.findings = scan.findings_count;
    // As the per-finding path counts: each chunk's distinct keys, all of them existing issues now.
    summary.updated = previous.summary.created + previous.summary.updated;
    this.deps.log.info('unchanged re-import: issues re-detected set-wise', {
      scanId: scan.scan_result_id,
      previous: previous.scanId,
      issues: detected,
    });
    return detected;
  }

  /**
   * Re-detects every issue scan `previous` detected last but those in `except`, set-wise, with what
   * the per-finding path would write for the same findings: only the few whose status a detection
   * changes (Fixed, or suppressed by the report) get their record and history written. Returns how
   * many issues it re-detected.
   */
  private async redetectSetWise(
    trx: Trx,
    ctx: ChunkContext,
    previous: string,
    except: Set<string>,
    summary: IngestSummary,
  ): Promise<number> {
    const { scan, at } = ctx;
    const issues = await issueStore.redetectionCandidates(trx, scan.project_code, previous, STATUS.fixed);
    const changed: IssueStatus[] = [];
    const history: HistoryEntry[] = [];
    for (const issue of issues) {
      if (except.has(issue.id)) continue;
      // The issue's suppression is the one its last finding carried: the same finding's.
      const suppression = issue.suppression ?? undefined;
      const status = statusOnDetection(issue.statusId, suppression);
      if (status === issue.statusId) continue;
      changed.push({ id: issue.id, statusId: status });
      history.push(
        statusSetByScan(scan, at, issue.id, issue.statusId, status, suppression, { same_findings_as_scan: previous }),
      );
      if (status === STATUS.reopen) summary.reopened++;
    }
    const redetected = await issueStore.redetect(trx, previous, scan.scan_result_id, at, changed, [...except]);
    await historyStore.add(trx, history);
    return redetected;
  }

  /**
   * A rescan read as its diff: scanning compared its findings with the check's previous scan by
   * content and names the findings it added and those of the previous scan it no longer has. When
   * that previous scan is the one ingested last, keyed the same way, and each issue a vanished
   * finding detected has lost every finding (so no unchanged finding decides what it shows), the
   * scan is: the previous scan's other issues re-detected set-wise, then the added findings matched
   * one by one (a fully vanished issue they match is detected again, the others are left for
   * `markFixed`). Returns how many issues the scan detected, or undefined when the diff does not
   * apply (the findings are then read and matched one by one).
   */
  async ingestDiff(
    trx: Trx,
    ctx: ChunkContext,
    keying: string,
    summary: IngestSummary,
    sides: DiffSides,
  ): Promise<number | undefined> {
    const { scan } = ctx;
    const plan = await this.diffPlan(trx, ctx, keying, sides, { lock: true });
    if (!plan) return undefined;
    const redetected = await this.redetectSetWise(trx, ctx, plan.previous, plan.except, summary);
    ctx.lookUp = true;
    for (let i = 0; i < sides.added.length; i += this.deps.chunkSize) {
      const write = await prepareChunk(
        trx,
        ctx,
        keyFindings(ctx, sides.added.slice(i, i + this.deps.chunkSize)),
        summary,
      );
      await write();
    }
    summary.findings = scan.findings_count;
    summary.updated += redetected;
    this.deps.log.info('rescan ingested as its diff', {
      scanId: scan.scan_result_id,
      previous: plan.previous,
      added: sides.added.length,
      vanished: scan.diff?.vanished,
      redetected,
    });
    return redetected + ctx.written.size;
  }

  /** The check's previous ingested scan when it is the base of this scan's diff, keyed the same way and still as it left its issues. */
  async diffBase(db: Queryable, scan: ScanCompleted, keying: string): Promise<PreviousIngestion | undefined> {
    if (!scan.diff) return undefined;
    const previous = await ingestedStore.previous(db, scan.check_id, scan.scan_result_id);
    if (!previous || previous.scanId !== scan.diff.base_scan_result_id || previous.keying !== keying) return undefined;
    if ((await issueStore.countDetectedBy(db, previous.scanId)) !== previous.issues) return undefined;
    return previous;
  }

  /**
   * Whether the diff applies (see `ingestDiff`): the previous scan and the issues its vanished
   * findings detected, which are left out of the set-wise re-detection; undefined when it does not.
   * Decided once before the transaction (a plain read: `lock: false`) and again in it, locking the
   * issues the diff touches.
   */
  async diffPlan(
    db: Queryable,
    ctx: Pick<ChunkContext, 'scan' | 'toolName' | 'dedupRules' | 'ruleByScanner'>,
    keying: string,
    sides: DiffSides,
    { lock }: { lock: boolean },
  ): Promise<{ previous: string; except: Set<string> } | undefined> {
    const { scan } = ctx;
    const previous = await this.diffBase(db, scan, keying);
    if (!previous) return undefined;
    const vanished = keyFindings(ctx, sides.vanished);
    const addedKeys = keyFindings(ctx, sides.added);
    const known = await issueStore.byKeys(db, scan.project_code, [...vanished.values(), ...addedKeys.values()], {
      lock,
    });
    const counts = await issueStore.findingsOf(
      db,
      [...vanished.keys()].flatMap((id) => known.get(id)?.id ?? []),
    );
    const except = new Set<string>();
    for (const [id, gone] of vanished) {
      const issue = known.get(id);
      if (!issue || issue.scanId !== previous.scanId || counts.get(issue.id) !== gone.findings) return undefined;
      except.add(issue.id);
    }
    for (const id of addedKeys.keys()) {
      const issue = known.get(id);
      if (issue && issue.scanId === previous.scanId && !except.has(issue.id)) return undefined;
    }
    return { previous: previous.scanId, except };
  }
}
