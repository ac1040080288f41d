import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const issuesConfigSchema = z.object({
  ISSUES_DATABASE_URL: env.url(),
  /** Findings per gRPC chunk and per batched upsert during ingestion. */
  ISSUES_INGEST_CHUNK: env.int(2000, 100),
  /** How often expired security rules are looked for. */
  ISSUES_RULE_EXPIRY_POLL_MS: env.int(5000, 100),
  /** How often the appended count changes (issue_counts) are folded into one row per group. */
  ISSUES_COUNT_COMPACT_MS: env.int(30000, 100),
});

export type IssuesConfig = z.infer<typeof issuesConfigSchema>;

export const readIssuesConfig = (e: NodeJS.ProcessEnv) => loadConfig(issuesConfigSchema, e);
