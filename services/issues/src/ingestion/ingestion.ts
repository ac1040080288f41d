import type { Finding } from '@bulwark/findings';
import { CatalogClient, Db, Logger, ScanningClient, Trx, unlessNotFound } from '@bulwark/platform';
import { scanningV1 } from '@bulwark/proto';
import { decodeJson, findingJson, ISSUE_EVENTS, SCAN_EVENTS, TypedEnvelope, writeEvent } from '@bulwark/contracts';
import type { DedupRule } from '../domain/match-key';
import type { KnownIssue } from '../domain/chunk-plan';
import { OPEN_STATUSES, STATUS } from '../domain/statuses';
import type { GateEvaluation } from '../gate-evaluation';
import type { IssueEnrichment } from '../intel/enrichment';
import type { SlaProjects } from '../sla/sla-projects';
import { historyStore } from '../store/history';
import { issueStore } from '../store/issues/issue-store';
import { pullRequestDecorationStore } from '../store/pull-request-decorations';
import { securityRuleStore } from '../store/security-rules';
import { dedupRuleStore, ingestedStore, UnchangedBasis } from '../store/settings';
import { tableStatistics } from '../store/table-statistics';
import { FindingsSpool } from './findings-spool';
import type { IngestionInput, ScanCompleted } from './input';
import { ChunkContext, IngestSummary, keyFindings, keyingOf, prepareChunk } from './matching';
import { countIngestion, IngestionRead } from './metrics';
import { Rescans } from './rescans';

type ScanCompletedEvent = TypedEnvelope<typeof SCAN_EVENTS.scanCompleted>;

export interface IngestionDeps {
  /** Read before the transaction (the consumer opens it). */
  db: Db;
  scanning: ScanningClient;
  catalog: CatalogClient;
  gates: GateEvaluation;
  /** Gives the scan's issues the exploit intelligence feeds' values, in the ingestion's transaction. */
  intel: IssueEnrichment;
  /** Learns the project's tags for the SLA policies, before the scan's issues are written. */
  sla: SlaProjects;
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
  private readonly intel: IngestionDeps['intel'];
  private readonly sla: IngestionDeps['sla'];
  private readonly log: Logger;
  private readonly chunkSize: number;
  private readonly rescans: Rescans;

  constructor(deps: IngestionDeps) {
    this.db = deps.db;
    this.scanning = deps.scanning;
    this.catalog = deps.catalog;
    this.gates = deps.gates;
    this.intel = deps.intel;
    this.sla = deps.sla;
    this.log = deps.log;
    this.chunkSize = deps.chunkSize;
    this.rescans = new Rescans({ log: deps.log, chunkSize: deps.chunkSize });
  }

  /** Undefined for a scan there is nothing to ingest of. */
  async read(event: ScanCompletedEvent): Promise<IngestionInput | undefined> {
    const started = Date.now();
    const input = await this.readInput(event);
    if (input)
      this.log.info('scan read for ingestion', {
        scanId: event.payload.scan_result_id,
        read: input.findings ? 'findings' : input.diff ? 'diff' : 'unchanged',
        ms: Date.now() - started,
      });
    return input;
  }

  private async readInput(event: ScanCompletedEvent): Promise<IngestionInput | undefined> {
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
    const input: IngestionInput = {
      scan,
      toolName,
      projectTags: project?.tags,
      projectCriticality: project?.criticality,
      findings: undefined,
      diff: undefined,
    };
    // What the transaction will read, decided on the state committed now; it checks again, and a
    // scan committed in between fails it (the retry decides anew).
    if (await this.rescans.unchangedPrevious(this.db, scan, keying)) return input;
    if (await this.rescans.diffBase(this.db, scan, keying)) {
      const sides = {
        vanished: await this.readDiffSide(scan, scanningV1.FindingSelection.FINDING_SELECTION_VANISHED),
        added: await this.readDiffSide(scan, scanningV1.FindingSelection.FINDING_SELECTION_ADDED),
      };
      const ctx = { scan, toolName, dedupRules, ruleByScanner: new Map<string, DedupRule>() };
      if (await this.rescans.diffPlan(this.db, ctx, keying, sides, { lock: false })) return { ...input, diff: sides };
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
    // The base's detections are about to be replaced by this pull request scan's: its set is taken first.
    if (scan.pull_request) await pullRequestDecorationStore.keepBaseSet(trx, scan.check_id);
    const decided = await this.decide(trx, input);
    if (!decided) return;
    const { summary, basis, read, verdict, at } = decided;
    await ingestedStore.finish(trx, scan.scan_result_id, summary.findings, summary, verdict, basis);
    // Delivered after this commits, outside any transaction (PullRequestDecorations).
    if (scan.pull_request)
      await pullRequestDecorationStore.enqueue(trx, {
        scanId: scan.scan_result_id,
        checkId: scan.check_id,
        projectCode: scan.project_code,
        sourceId: scan.pull_request.source_id,
        prNumber: scan.pull_request.number,
        headSha: scan.pull_request.head_sha,
        baseBranch: scan.pull_request.base_branch,
        verdict,
      });
    // A scan outside any pull request is the base its check's pull requests are compared with.
    else await pullRequestDecorationStore.recordBranchScan(trx, scan.check_id, scan.scan_result_id, at);
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

  /**
   * Everything an ingestion decides, written in `trx`: the issues and their history, the feeds'
   * values and the gate verdict. The real ingestion commits it with its events; a dry run
   * (`IngestionDryRun`) reads it back and rolls it back. Undefined when the scan was ingested before.
   */
  async decide(trx: Trx, input: IngestionInput) {
    const { scan } = input;
    await this.sla.atIngestion(trx, scan.project_code, input.projectTags);
    const ingested = await this.ingest(trx, input);
    if (!ingested) return undefined;
    // Before the verdict, so gates counting exploited issues see the new ones as such.
    await this.intel.criticalityAtIngestion(trx, scan.project_code, scan.layer_id, input.projectCriticality);
    await this.intel.enrichLayer(trx, scan.layer_id);
    const verdict = await this.gates.evaluateAfterScan(trx, scan, input.projectTags);
    return { ...ingested, verdict };
  }

  /** The issue changes of one scan; undefined when the scan was ingested before (nothing changes). */
  async ingest(
    trx: Trx,
    { scan, toolName, findings, diff }: IngestionInput,
  ): Promise<{ summary: IngestSummary; basis: UnchangedBasis; read: IngestionRead; at: string } | undefined> {
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
    let redetected = await this.rescans.redetectUnchanged(trx, ctx, keying, summary);
    if (redetected === undefined && diff) {
      read = 'diff';
      redetected = await this.rescans.ingestDiff(trx, ctx, keying, summary, diff);
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
        const keyed = keyFindings(ctx, decoded);
        // A lookup would queue behind the previous chunk's statements on the transaction's connection anyway.
        if (ctx.lookUp) await pending;
        const write = await prepareChunk(trx, ctx, keyed, summary);
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
        reason: { kind: 'fixed', scan_id: scan.scan_result_id, check_id: scan.check_id },
        at,
      })),
    );
    return {
      summary,
      basis: { findingsDigest: scan.findings_digest ?? null, keying, issues: redetected ?? ctx.written.size },
      read,
      at,
    };
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
}
