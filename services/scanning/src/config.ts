import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const scanningConfigSchema = z.object({
  SCANNING_DATABASE_URL: env.url(),
});

export const readScanningConfig = (e: NodeJS.ProcessEnv) => loadConfig(scanningConfigSchema, e);
