import { z } from '../zod';
import { changeReason, matchReason } from './issues';
import { qualityGateVerdictView } from './scanning';

/** The kinds of outcome a dry run counts, each issue in exactly one. */
export const DRY_RUN_KINDS = ['new', 'unchanged', 'fixed', 'reopened', 'suppressed', 'duplicate'] as const;

/** At most this many examples of each kind. */
export const DRY_RUN_EXAMPLES = 100;

const outcomeReason = z
  .union([
    changeReason,
    z.object({ kind: z.literal('new').describe('No issue matched on these fields'), match: matchReason }),
    z.object({ kind: z.literal('unchanged').describe('Matched an issue whose status stays'), match: matchReason }),
    z.object({
      kind: z.literal('duplicate').describe('Matched an issue linked as a duplicate of another'),
      duplicate_of: z.string(),
      match: matchReason,
    }),
  ])
  .openapi('DryRunReason');

const example = z.object({
  issue_id: z.string().nullable().describe('null for an issue the upload would create'),
  title: z.string(),
  severity: z.string(),
  fingerprint: z.string(),
  reason: outcomeReason,
});

const perKind = <T extends z.ZodType>(item: T) =>
  z.object(Object.fromEntries(DRY_RUN_KINDS.map((k) => [k, item])) as Record<(typeof DRY_RUN_KINDS)[number], T>);

/**
 * What an upload would do, from the issues service (README "Issues", dry run): the real ingestion
 * run in a transaction that is rolled back. `scan_id` in the reasons is the id the would-be scan
 * had there, which no scan keeps.
 */
export const dryRunOutcome = z.object({
  findings: z.number().int().describe("The report's findings"),
  counts: perKind(z.number().int()),
  quality_gate: qualityGateVerdictView
    .nullable()
    .describe("The verdict the upload's ingestion would give; null: no gate applies"),
  examples: perKind(z.array(example).max(DRY_RUN_EXAMPLES)),
});

export const dryRunResponse = dryRunOutcome.extend({ dry_run: z.literal(true) }).openapi('DryRunResult');
