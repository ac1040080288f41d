import { createHash } from 'node:crypto';
import type { Finding } from '@bulwark/findings';
import type { Trx } from '@bulwark/platform';
import { KeyedFinding, KnownIssue, planChunk } from '../domain/chunk-plan';
import { DedupRule, matchKey, ruleFor, scopeOf } from '../domain/match-key';
import { historyStore } from '../store/history';
import { issueStore, runStatement } from '../store/issues/issue-store';
import type { SecurityRuleRecord } from '../store/security-rules';
import type { ScanCompleted } from './input';

export interface IngestSummary {
  findings: number;
  created: number;
  updated: number;
  reopened: number;
  fixed: number;
}

/** What matching a scan's findings with issues knows as it goes. */
export interface ChunkContext {
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
export const keyingOf = (dedupRules: DedupRule[], toolName: string, scan: ScanCompleted) =>
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

/** The chunk's findings by identity: two findings a rule gives the same identity are one issue (occurrences add up). */
export function keyFindings(
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
    } else byKey.set(id, { finding: f, scope, key, occurrences: f.occurrences ?? 1, findings: 1, rule });
  }
  return byKey;
}

/**
 * Matches a chunk's findings with the issues written before (this scan's, from memory; the
 * project's, locked) and encodes what the chunk writes; the returned function writes it. Chunks
 * are planned in order, so each sees what the ones before it wrote.
 */
export async function prepareChunk(
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
