import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const issuesConfigSchema = z.object({
  ISSUES_DATABASE_URL: env.url(),
  /** Findings per gRPC chunk and per batched upsert during ingestion. */
  ISSUES_INGEST_CHUNK: env.int(2000, 100),
  /** How often expired security rules and risk acceptances are looked for. */
  ISSUES_RULE_EXPIRY_POLL_MS: env.int(5000, 100),
  /** How often the appended count changes (issue_counts) are folded into one row per group. */
  ISSUES_COUNT_COMPACT_MS: env.int(30000, 100),
  /** How often ticket statuses are read from each task tracker with sync enabled. */
  TRACKERS_SYNC_MS: env.int(60000, 1000),
  /** How often status changes of linked issues waiting for their tickets are looked for. */
  TRACKERS_PUSH_POLL_MS: env.int(2000, 100),
  /** Calls per second to one tracker from one process. */
  TRACKERS_RATE_PER_SECOND: env.int(5, 1),
  /** Time limit of one tracker call. */
  TRACKERS_TIMEOUT_SECONDS: env.int(15, 1),
  /** Attempts of a status push before it is given up (and recorded as an integration failure). */
  TRACKERS_PUSH_MAX_ATTEMPTS: env.int(8, 1),
});

export type IssuesConfig = z.infer<typeof issuesConfigSchema>;

export const readIssuesConfig = (e: NodeJS.ProcessEnv) => loadConfig(issuesConfigSchema, e);
