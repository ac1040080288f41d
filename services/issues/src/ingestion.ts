import { createHash } from 'node:crypto';
import type { Finding } from '@bulwark/findings';
import { CatalogClient, Db, Logger, Queryable, ScanningClient, Trx, unlessNotFound } from '@bulwark/platform';
import { scanningV1 } from '@bulwark/proto';
import { decodeJson, findingJson, ISSUE_EVENTS, SCAN_EVENTS, TypedEnvelope, writeEvent } from '@bulwark/contracts';
import { DedupRule, matchKey, ruleFor, scopeOf } from './domain/match-key';
import { KeyedFinding, KnownIssue, planChunk, statusSetByScan } from './domain/chunk-plan';
import { FindingsSpool } from './findings-spool';
import { countIngestion, IngestionRead } from './ingestion-metrics';
import type { DiffSides, IngestionInput, ScanCompleted } from './ingestion-input';
import { OPEN_STATUSES, STATUS, statusOnDetection } from './domain/statuses';
import type { GateEvaluation } from './gate-evaluation';
import { HistoryEntry, historyStore } from './store/history';
import { IssueStatus, issueStore, runStatement } from './store/issues';
import { SecurityRuleRecord, securityRuleStore } from './store/security-rules';
import { dedupRuleStore, ingestedStore, PreviousIngestion, UnchangedBasis } from './store/settings';
import { tableStatistics } from './store/table-statistics';

type ScanCompletedEvent = TypedEnvelope<typeof SCAN_EVENTS.scanCompleted>;

export interface IngestSummary {
  findings: number;
  created: number;
  updated: number;
  reopened: number;
  fixed: number;
}

interface ChunkContext {
  scan: ScanCompleted;
  at: string;
  toolName: string;
  dedupRules: DedupRule[];
  rules: SecurityRuleRecord[];
  written: Map<string, KnownIssue>;
  /** False when the project had no issue before this scan. */
  lookUp: boolean;
  /** The dedup rule of each scanner name of the report (the catalog's tool name is the same for all). */
  ruleByScanner: Map<string, DedupRule>;
}

/**
 * Findings become match keys through the dedup rules, the tool's name and the layer: with these
 * unchanged, the same findings give the same keys.
 */
const keyingOf = (dedupRules: DedupRule[], toolName: string, scan: ScanCompleted) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        [...dedupRules].map((r) => JSON.stringify(r)).sort(),
        toolName,
        scan.layer_id,
        scan.project_code,
      ]),
    )
    .digest('hex');

export interface IngestionDeps {
  /** Read before the transaction (the consumer opens it). */
  db: Db;
  scanning: ScanningClient;
  catalog: CatalogClient;
  gates: GateEvaluation;
  log: Logger;
  /** Findings per chunk read from scanning and written at once. */
  chunkSize: number;
}

/**
 * Turns a completed scan's findings into issues, as an effect of the idempotent consumer in two
 * phases. `read` gets what the writes need from scanning and the catalog before any transaction
 * opens (the findings into a spool file); `write` runs in one transaction with the inbox record and
 * talks to this service's database only, so the whole scan commits at once: a crash anywhere leaves
 * nothing behind and the redelivered event starts over, ending with exactly the issue set of an
 * uninterrupted run.
 */
export class Ingestion {
  private readonly db: Db;
  private readonly scanning: ScanningClient;
  private readonly catalog: CatalogClient;
  private readonly gates: GateEvaluation;
  private readonly log: Logger;
  private readonly chunkSize: number;

  constructor(deps: IngestionDeps) {
    this.db = deps.db;
    this.scanning = deps.scanning;
    this.catalog = deps.catalog;
    this.gates = deps.gates;
    this.log = deps.log;
    this.chunkSize = deps.chunkSize;
  }

  /** Undefined for a scan there is nothing to ingest of. */
  async read(event: ScanCompletedEvent): Promise<IngestionInput | undefined> {
    const scan = event.payload;
    // Policies may hold a lock gate: a catalog that cannot answer fails the ingestion (the event is
    // redelivered), never a verdict without them.
    const project = await this.catalog.getProject({ code: scan.project_code }).catch(unlessNotFound);
    // A scan result deleted since (or announced by another installation sharing the bus) has nothing to read.
    const known = await this.scanning.getScan({ scanResultId: scan.scan_result_id }).catch(unlessNotFound);
    if (!known || known.state !== 'completed') {
      this.log.warn('scan.completed for an unknown or incomplete scan result skipped', {
        scanId: scan.scan_result_id,
        state: known?.state,
      });
      return undefined;
    }
    const toolName = scan.tool_name ?? (await this.toolNameOf(scan.tool_id));
    const dedupRules = await dedupRuleStore.all(this.db);
    const keying = keyingOf(dedupRules, toolName, scan);
    const input: IngestionInput = { scan, toolName, projectTags: project?.tags, findings: undefined, diff: undefined };
    // What the transaction will read, decided on the state committed now; it checks again, and a
    // scan committed in between fails it (the retry decides anew).
    if (await this.unchangedPrevious(this.db, scan, keying)) return input;
    if (await this.diffBase(this.db, scan, keying)) {
      const sides = {
        vanished: await this.readDiffSide(scan, scanningV1.FindingSelection.FINDING_SELECTION_VANISHED),
        added: await this.readDiffSide(scan, scanningV1.FindingSelection.FINDING_SELECTION_ADDED),
      };
      const ctx = { scan, toolName, dedupRules, ruleByScanner: new Map<string, DedupRule>() };
      if (await this.diffPlan(this.db, ctx, keying, sides)) return { ...input, diff: sides };
    }
    const findings = await FindingsSpool.fill(
      this.scanning.streamFindings({
        scanResultId: scan.scan_result_id,
        afterSeq: 0,
        chunkSize: this.chunkSize,
        selection: scanningV1.FindingSelection.FINDING_SELECTION_ALL,
      }),
    );
    return { ...input, findings };
  }

  /**
   * The catalog's name of a tool, for an event written before scanning carried it. The name picks
   * the deduplication rule, so match keys depend on it: a catalog that cannot answer fails the
   * ingestion (the event is redelivered) instead of keying with another rule.
   */
  private async toolNameOf(toolId: string): Promise<string> {
    const tool = toolId
      ? await this.catalog.getTool({ id: toolId, withSecrets: false }).catch(unlessNotFound)
      : undefined;
    return tool?.name ?? '';
  }

  async release(input: IngestionInput | undefined): Promise<void> {
    await input?.findings?.remove();
  }

  async write(event: ScanCompletedEvent, trx: Trx, input: IngestionInput | undefined): Promise<void> {
    if (!input) return;
    const scan = event.payload;
    const started = Date.now();
    const ingested = await this.ingest(trx, input);
    if (!ingested) return;
    const { summary, basis, read } = ingested;
    const verdict = await this.gates.evaluateAfterScan(trx, scan, input.projectTags);
    await ingestedStore.finish(trx, scan.scan_result_id, summary.findings, summary, verdict, basis);
    await writeEvent(trx, ISSUE_EVENTS.issuesIngested, scan.scan_result_id, {
      scan_result_id: scan.scan_result_id,
      check_id: scan.check_id,
      layer_id: scan.layer_id,
      project_code: scan.project_code,
      ...summary,
    });
    // Last, so the statistics sample every row this ingestion wrote.
    const analyzed = await tableStatistics.refreshChangedInBulk(trx);
    countIngestion(trx, summary.findings, (Date.now() - started) / 1000, read);
    this.log.info('scan ingested', {
      scanId: scan.scan_result_id,
      read,
      ...summary,
      analyzed,
      ms: Date.now() - started,
    });
  }

  /** The issue changes of one scan; undefined when the scan was ingested before (nothing changes). */
  async ingest(
    trx: Trx,
    { scan, toolName, findings, diff }: IngestionInput,
  ): Promise<{ summary: IngestSummary; basis: UnchangedBasis; read: IngestionRead } | undefined> {
    if (
      !(await ingestedStore.claim(trx, {
        scanId: scan.scan_result_id,
        checkId: scan.check_id,
        layerId: scan.layer_id,
        projectCode: scan.project_code,
      }))
    )
      return undefined;
    const dedupRules = await dedupRuleStore.all(trx);
    const rules = await securityRuleStore.active(trx);
    const at = new Date().toISOString();
    const summary: IngestSummary = { findings: 0, created: 0, updated: 0, reopened: 0, fixed: 0 };
    // Issues this scan wrote, by identity; when the project had none before, nothing else can match.
    const written = new Map<string, KnownIssue>();
    const ctx: ChunkContext = {
      scan,
      at,
      toolName,
      dedupRules,
      rules,
      written,
      lookUp: await issueStore.anyInProject(trx, scan.project_code),
      ruleByScanner: new Map(),
    };
    const keying = keyingOf(dedupRules, ctx.toolName, scan);
    let read: IngestionRead = 'unchanged';
    let redetected = await this.redetectUnchanged(trx, ctx, keying, summary);
    if (redetected === undefined && diff) {
      read = 'diff';
      redetected = await this.ingestDiff(trx, ctx, keying, summary, diff);
    }
    if (redetected === undefined) {
      read = 'findings';
      // Read before the transaction as an unchanged re-import or a diff that this one no longer
      // finds (a scan of the check or a dedup rule committed in between): the retry reads anew.
      if (!findings)
        throw new Error(`Scan ${scan.scan_result_id} no longer reads as decided before its transaction; read again`);
      // The next chunk is read, keyed, matched and encoded while the database writes the previous
      // one, so the database never waits for this process (the writes stay in chunk order).
      let pending: Promise<void> = Promise.resolve();
      for await (const chunk of findings.chunks()) {
        const decoded = chunk.map((j) => decodeJson(findingJson, j, 'findings_json'));
        summary.findings += decoded.length;
        const keyed = this.keyed(ctx, decoded);
        // A lookup would queue behind the previous chunk's statements on the transaction's connection anyway.
        if (ctx.lookUp) await pending;
        const write = await this.prepareChunk(trx, ctx, keyed, summary);
        await pending;
        pending = write();
        // Handled here so a failure waits for the await below instead of crashing the process.
        pending.catch(() => undefined);
      }
      await pending;
    }
    const fixed = await issueStore.markFixed(trx, scan.check_id, scan.scan_result_id, OPEN_STATUSES, STATUS.fixed, at);
    summary.fixed = fixed.length;
    await historyStore.add(
      trx,
      fixed.map((f) => ({
        issueId: f.id,
        actorKind: 'scan',
        actor: scan.scan_result_id,
        field: 'status',
        oldValue: String(f.old),
        newValue: String(STATUS.fixed),
        comment: 'Not found by a complete scan of the check that found it',
        at,
      })),
    );
    return {
      summary,
      basis: { findingsDigest: scan.findings_digest ?? null, keying, issues: redetected ?? ctx.written.size },
      read,
    };
  }

  /**
   * The check's previous ingested scan when this one is an unchanged re-import of it: the same
   * findings, keyed the same way, and every issue it detected still last detected by it.
   */
  private async unchangedPrevious(
    db: Queryable,
    scan: ScanCompleted,
    keying: string,
  ): Promise<PreviousIngestion | undefined> {
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
  private async redetectUnchanged(
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
    this.log.info('unchanged re-import: issues re-detected set-wise', {
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
      history.push(statusSetByScan(scan.scan_result_id, at, issue.id, issue.statusId, status, suppression));
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
  private async ingestDiff(
    trx: Trx,
    ctx: ChunkContext,
    keying: string,
    summary: IngestSummary,
    sides: DiffSides,
  ): Promise<number | undefined> {
    const { scan } = ctx;
    const plan = await this.diffPlan(trx, ctx, keying, sides);
    if (!plan) return undefined;
    const redetected = await this.redetectSetWise(trx, ctx, plan.previous, plan.except, summary);
    ctx.lookUp = true;
    for (let i = 0; i < sides.added.length; i += this.chunkSize) {
      const write = await this.prepareChunk(
        trx,
        ctx,
        this.keyed(ctx, sides.added.slice(i, i + this.chunkSize)),
        summary,
      );
      await write();
    }
    summary.findings = scan.findings_count;
    summary.updated += redetected;
    this.log.info('rescan ingested as its diff', {
      scanId: scan.scan_result_id,
      previous: plan.previous,
      added: sides.added.length,
      vanished: scan.diff?.vanished,
      redetected,
    });
    return redetected + ctx.written.size;
  }

  /** The check's previous ingested scan when it is the base of this scan's diff, keyed the same way and still as it left its issues. */
  private async diffBase(db: Queryable, scan: ScanCompleted, keying: string): Promise<PreviousIngestion | undefined> {
    if (!scan.diff) return undefined;
    const previous = await ingestedStore.previous(db, scan.check_id, scan.scan_result_id);
    if (!previous || previous.scanId !== scan.diff.base_scan_result_id || previous.keying !== keying) return undefined;
    if ((await issueStore.countDetectedBy(db, previous.scanId)) !== previous.issues) return undefined;
    return previous;
  }

  /**
   * Whether the diff applies (see `ingestDiff`): the previous scan and the issues its vanished
   * findings detected, which are left out of the set-wise re-detection; undefined when it does not.
   */
  private async diffPlan(
    db: Queryable,
    ctx: Pick<ChunkContext, 'scan' | 'toolName' | 'dedupRules' | 'ruleByScanner'>,
    keying: string,
    sides: DiffSides,
  ): Promise<{ previous: string; except: Set<string> } | undefined> {
    const { scan } = ctx;
    const previous = await this.diffBase(db, scan, keying);
    if (!previous) return undefined;
    const vanished = this.keyed(ctx, sides.vanished);
    const addedKeys = this.keyed(ctx, sides.added);
    const known = await issueStore.byKeys(db, scan.project_code, [...vanished.values(), ...addedKeys.values()]);
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

  /** One side of the scan's diff against its base, whole: at most a quarter of a scan's findings (scanning's bound). */
  private async readDiffSide(scan: ScanCompleted, selection: scanningV1.FindingSelection): Promise<Finding[]> {
    const findings: Finding[] = [];
    for await (const chunk of this.scanning.streamFindings({
      scanResultId: scan.scan_result_id,
      afterSeq: 0,
      chunkSize: this.chunkSize,
      selection,
    }))
      for (const j of chunk.findingsJson) findings.push(decodeJson(findingJson, j, 'findings_json'));
    return findings;
  }

  /** The chunk's findings by identity: two findings a rule gives the same identity are one issue (occurrences add up). */
  private keyed(
    ctx: Pick<ChunkContext, 'scan' | 'toolName' | 'dedupRules' | 'ruleByScanner'>,
    findings: Finding[],
  ): Map<string, KeyedFinding> {
    const byKey = new Map<string, KeyedFinding>();
    for (const f of findings) {
      let rule = ctx.ruleByScanner.get(f.tool);
      if (!rule) ctx.ruleByScanner.set(f.tool, (rule = ruleFor(ctx.dedupRules, [ctx.toolName, f.tool])));
      const scope = scopeOf(rule, ctx.scan.layer_id);
      const key = matchKey(f, rule);
      const id = `${scope}\u0000${key}`;
      const seen = byKey.get(id);
      if (seen) {
        seen.occurrences += f.occurrences ?? 1;
        seen.findings += 1;
      } else byKey.set(id, { finding: f, scope, key, occurrences: f.occurrences ?? 1, findings: 1 });
    }
    return byKey;
  }

  /**
   * Matches a chunk's findings with the issues written before (this scan's, from memory; the
   * project's, locked) and encodes what the chunk writes; the returned function writes it. Chunks
   * are planned in order, so each sees what the ones before it wrote.
   */
  private async prepareChunk(
    trx: Trx,
    ctx: ChunkContext,
    byKey: Map<string, KeyedFinding>,
    summary: IngestSummary,
  ): Promise<() => Promise<void>> {
    const { scan } = ctx;
    const unknown = [...byKey].filter(([id]) => !ctx.written.has(id)).map(([, m]) => m);
    const existing =
      ctx.lookUp && unknown.length
        ? await issueStore.byKeys(trx, scan.project_code, unknown)
        : new Map<string, KnownIssue>();
    for (const id of byKey.keys()) {
      const e = ctx.written.get(id);
      if (e) existing.set(id, e);
    }
    const plan = planChunk(ctx, byKey, existing);
    for (const [id, issue] of plan.known) ctx.written.set(id, issue);
    summary.created += plan.created;
    summary.updated += plan.updated;
    summary.reopened += plan.reopened;
    const insert = issueStore.insertStatement(plan.inserts);
    const detect = issueStore.detectStatement(ctx.at, plan.detections);
    return async () => {
      await runStatement(trx, insert);
      await runStatement(trx, detect);
      await historyStore.add(trx, plan.history);
    };
  }
}
