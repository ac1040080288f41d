import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const reportingConfigSchema = z.object({
  REPORTING_DATABASE_URL: env.url(),
});

export const readReportingConfig = (e: NodeJS.ProcessEnv) => loadConfig(reportingConfigSchema, e);
