import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const issuesConfigSchema = z.object({
  ISSUES_DATABASE_URL: env.url(),
});

export const readIssuesConfig = (e: NodeJS.ProcessEnv) => loadConfig(issuesConfigSchema, e);
