import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const reportingConfigSchema = z.object({
  REPORTING_DATABASE_URL: env.url(),
  /** How often queued reports are looked for. */
  REPORTING_POLL_MS: env.int(1000, 50),
  /** How long a generating process holds a report before another may take it over. */
  REPORTING_LEASE_SECONDS: env.int(300, 5),
  /** Open issues listed in a summary report, most severe first (at most 10,000). */
  REPORTING_TOP_ISSUES: env.int(1000, 1).pipe(z.number().max(10_000)),
});

export type ReportingConfig = z.infer<typeof reportingConfigSchema>;

export const readReportingConfig = (e: NodeJS.ProcessEnv) => loadConfig(reportingConfigSchema, e);
