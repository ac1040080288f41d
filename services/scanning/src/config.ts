import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

/** Where npm put ESLint's binary: the ESLint scanner comes with this service. */
function npmBinDir(): string {
  return path.resolve(path.dirname(require.resolve('eslint/package.json')), '..', '.bin');
}

export const scanningConfigSchema = z.object({
  SCANNING_DATABASE_URL: env.url(),
  /** `local` runs scanners as child processes; `kubernetes` as Jobs. */
  SCAN_RUNNER: z.enum(['local', 'kubernetes']).default('local'),
  /** Scans run at once by this process, and per tool across the deployment. */
  SCAN_CONCURRENCY: env.int(2, 1),
  SCAN_CONCURRENCY_PER_TOOL: env.int(2, 1),
  SCAN_LEASE_SECONDS: env.int(30, 3),
  SCAN_MAX_ATTEMPTS: env.int(2, 1),
  SCAN_POLL_MS: env.int(1000, 50),
  SCAN_TIMEOUT_SECONDS: env.int(1800, 10),
  SCAN_CHECKOUT_TIMEOUT_SECONDS: env.int(300, 5),
  SCAN_OUTPUT_LIMIT_BYTES: env.int(4 * 1024 * 1024, 1024),
  SCAN_WORKSPACE_DIR: z.string().default(path.join(os.tmpdir(), 'bulwark-scans')),
  /** Folders holding scanner binaries, searched before PATH (colon-separated). */
  SCANNER_PATH: z.string().optional(),
  SCANNER_RULES_DIR: z.string().default(path.resolve(__dirname, '..', 'rules')),
});

export type ScanningConfig = z.infer<typeof scanningConfigSchema>;

export function readScanningConfig(e: NodeJS.ProcessEnv) {
  const config = loadConfig(scanningConfigSchema, e);
  return { ...config, scannerPath: [...(config.SCANNER_PATH ?? '').split(path.delimiter).filter(Boolean), npmBinDir()] };
}
