import {
  decodeJson,
  DRY_RUN_EXAMPLES,
  DRY_RUN_KINDS,
  dryRunOutcome,
  EVENT_PAYLOADS,
  SCAN_EVENTS,
} from '@bulwark/contracts';
import type { z } from 'zod';
import { CatalogClient, Db, invalid, Logger, Trx, unlessNotFound } from '@bulwark/platform';
import type { issuesV1 } from '@bulwark/proto';
import { matchReason } from '../domain/change-reason';
import { ruleFor } from '../domain/match-key';
import { dedupRuleStore } from '../store/settings';
import { ingestionOutcomeStore, OutcomeExample } from '../store/ingestion-outcome';
import { FindingsSpool } from './findings-spool';
import type { Ingestion } from './ingestion';
import type { ScanCompleted } from './input';

type DryRunOutcome = z.infer<typeof dryRunOutcome>;

/** Carries a dry run's answer out of the transaction it rolls back. */
class RolledBack extends Error {
  constructor(readonly outcome: DryRunOutcome) {
    super('dry run rolled back');
  }
}

/**
 * What ingesting an upload would do, written nowhere (README "Issues", dry run). The findings scanning
 * streams are spooled to a file as the real ingestion's are; then the real ingestion's `decide` runs
 * them, with the same matching, security rules, fixing and gate verdict, in a transaction that is
 * rolled back after the outcome is read from it. Nothing of it stays: no issue, history, outbox row,
 * layer state or ingested scan. It locks the issues it matches while it runs, as an ingestion does.
 */
export class IngestionDryRun {
  constructor(private readonly deps: { db: Db; catalog: CatalogClient; ingestion: Ingestion; log: Logger }) {}

  async run(chunks: AsyncIterable<issuesV1.DryRunChunk>): Promise<DryRunOutcome> {
    const iterator = chunks[Symbol.asyncIterator]();
    const first = await iterator.next();
    const scanJson = first.done ? '' : first.value.scanJson;
    if (!scanJson)
      throw invalid('A dry run starts with the scan it would make', [{ field: 'scan_json', problem: 'missing' }]);
    // Read as a first ingestion of all its findings: no digest or diff against an earlier scan.
    const scan: ScanCompleted = {
      ...decodeJson(EVENT_PAYLOADS[SCAN_EVENTS.scanCompleted], scanJson, 'scan_json'),
      findings_digest: undefined,
      diff: undefined,
    };
    const findings = await FindingsSpool.fill(
      (async function* () {
        if (!first.done && first.value.findingsJson.length) yield first.value;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      })(),
    );
    try {
      const project = await this.deps.catalog.getProject({ code: scan.project_code }).catch(unlessNotFound);
      const input = {
        scan,
        toolName: scan.tool_name ?? '',
        projectTags: project?.tags,
        projectCriticality: project?.criticality,
        findings,
        diff: undefined,
      };
      const outcome = await this.rolledBack(async (trx) => {
        const decided = await this.deps.ingestion.decide(trx, input);
        if (!decided) throw new Error(`Dry run scan ${scan.scan_result_id} was ingested before`);
        return this.outcome(trx, scan, decided);
      });
      this.deps.log.info('upload dry run answered, its ingestion rolled back', {
        checkId: scan.check_id,
        findings: outcome.findings,
        ...outcome.counts,
      });
      return outcome;
    } finally {
      await findings.remove();
    }
  }

  private async outcome(
    trx: Trx,
    scan: ScanCompleted,
    decided: NonNullable<Awaited<ReturnType<Ingestion['decide']>>>,
  ): Promise<DryRunOutcome> {
    const read = await ingestionOutcomeStore.of(
      trx,
      { id: scan.scan_result_id, projectCode: scan.project_code },
      decided.at,
      DRY_RUN_EXAMPLES,
    );
    const dedupRules = await dedupRuleStore.all(trx);
    const examples = Object.fromEntries(
      DRY_RUN_KINDS.map((k) => [k, [] as DryRunOutcome['examples']['new']]),
    ) as DryRunOutcome['examples'];
    for (const e of read.examples) {
      const match = matchReason(ruleFor(dedupRules, [scan.tool_name ?? '', e.scanner]));
      examples[e.kind].push({
        issue_id: e.kind === 'new' ? null : e.id,
        title: e.title,
        severity: e.severity,
        fingerprint: e.fingerprint,
        reason: reasonOf(e, match),
      });
    }
    return dryRunOutcome.parse({
      findings: decided.summary.findings,
      counts: Object.fromEntries(DRY_RUN_KINDS.map((k) => [k, read.counts.get(k) ?? 0])),
      quality_gate: decided.verdict,
      examples,
    });
  }

  /** `work`'s answer, with everything it wrote rolled back. */
  private async rolledBack(work: (trx: Trx) => Promise<DryRunOutcome>): Promise<DryRunOutcome> {
    try {
      await this.deps.db.transaction(async (trx) => {
        throw new RolledBack(await work(trx));
      });
    } catch (err) {
      if (err instanceof RolledBack) return err.outcome;
      throw err;
    }
    throw new Error('a dry run’s transaction committed');
  }
}

/** Why an example is of its kind: the recorded reason of a status change, else how its finding matched. */
function reasonOf(
  e: OutcomeExample,
  match: ReturnType<typeof matchReason>,
): DryRunOutcome['examples']['new'][number]['reason'] {
  if (e.reason) return e.reason;
  if (e.kind === 'duplicate' && e.duplicateOf) return { kind: 'duplicate', duplicate_of: e.duplicateOf, match };
  return { kind: e.kind === 'new' ? 'new' : 'unchanged', match };
}
