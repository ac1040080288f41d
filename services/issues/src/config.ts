import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';
import { DEFAULT_EPSS_URL, DEFAULT_KEV_URL } from '@bulwark/contracts';

export const issuesConfigSchema = z.object({
  ISSUES_DATABASE_URL: env.url(),
  /** Findings per gRPC chunk and per batched upsert during ingestion. */
  ISSUES_INGEST_CHUNK: env.int(2000, 100),
  /** How often expired security rules and risk acceptances are looked for. */
  ISSUES_RULE_EXPIRY_POLL_MS: env.int(5000, 100),
  /** How often issues past their SLA due date are looked for, to announce each breach once (issue.sla_breached). */
  ISSUES_SLA_POLL_MS: env.int(60000, 100),
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
  /** How often pull request decorations waiting for delivery are looked for. */
  ISSUES_DECORATION_POLL_MS: env.int(2000, 100),
  /** Attempts of a pull request decoration before it is given up (and recorded in the error log). */
  ISSUES_DECORATION_MAX_ATTEMPTS: env.int(8, 1),
  /** The console's address as people open it: the link in each pull request comment. */
  ISSUES_CONSOLE_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080'),
  /** Where the EPSS and KEV feeds are fetched from until the settings are saved through the API. */
  INTEL_EPSS_URL: z.url({ protocol: /^https?$/ }).default(DEFAULT_EPSS_URL),
  INTEL_KEV_URL: z.url({ protocol: /^https?$/ }).default(DEFAULT_KEV_URL),
  /** How often a replica looks whether the scheduled feed fetch is due (one replica claims it). */
  INTEL_POLL_MS: env.int(60000, 100),
  /** Time limit of one feed download, body included. */
  INTEL_TIMEOUT_SECONDS: env.int(120, 1),
  /** Largest feed read (compressed), and largest after gunzip. */
  INTEL_MAX_BYTES: env.int(33554432, 1024),
  INTEL_MAX_DECOMPRESSED_BYTES: env.int(268435456, 1024),
});

export type IssuesConfig = z.infer<typeof issuesConfigSchema>;

export const readIssuesConfig = (e: NodeJS.ProcessEnv) => loadConfig(issuesConfigSchema, e);
