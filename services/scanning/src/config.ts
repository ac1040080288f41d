import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';
import { installPrefixOf, SandboxSettings } from './runner/sandbox';

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
  /** Worker threads parsing reports (uploads and scans' output), and the heap each may use: a report past it is refused with 413. */
  REPORT_PARSE_THREADS: env.int(Math.max(1, Math.min(4, os.availableParallelism() - 1)), 1),
  REPORT_PARSE_MEMORY_MB: env.int(4096, 64),
  SCAN_WORKSPACE_DIR: z.string().default(path.join(os.tmpdir(), 'bulwark-scans')),
  /** Folders holding scanner binaries, searched before PATH (colon-separated). */
  SCANNER_PATH: z.string().optional(),
  SCANNER_RULES_DIR: z.string().default(path.resolve(__dirname, '..', 'rules')),
  /** Local runner: `bwrap` runs each scanner in bubblewrap; `none` runs it unconfined (an explicit opt-out, warned at start). */
  SCAN_SANDBOX: z.enum(['bwrap', 'none']).default('bwrap'),
  /** The user and group scanners run as when the service runs as root (default nobody/nogroup). */
  SCAN_SANDBOX_UID: env.int(65534, 1),
  SCAN_SANDBOX_GID: env.int(65534, 1),
  /** Limits per scanner process: CPU seconds, address space (Semgrep reserves over 3 GiB), file size. */
  SCAN_SANDBOX_CPU_SECONDS: env.int(3600, 1),
  SCAN_SANDBOX_MEMORY_MB: env.int(8192, 64),
  SCAN_SANDBOX_MAX_FILE_MB: env.int(256, 1),
  /** Processes and threads of the sandbox's user, all its scans together (RLIMIT_NPROC). */
  SCAN_SANDBOX_PROCESSES: env.int(256, 8),
  SCAN_SANDBOX_OPEN_FILES: env.int(4096, 64),
  /** Kubernetes runner: unset namespace = the context's (in-cluster: the pod's); unset URL = in-cluster or kubeconfig. */
  SCAN_K8S_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .max(63)
    .optional(),
  SCAN_K8S_API_URL: env
    .url()
    .refine(
      (u) => !u || u.startsWith('https://') || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(u),
      {
        message: 'https, or plain http to a loopback address only (kubectl proxy)',
      },
    ),
  SCAN_K8S_TOKEN: z.string().optional(),
  SCAN_K8S_CA_FILE: z.string().optional(),
  /** Image of the init container that clones the source inside the scan's pod (needs sh, git, ssh). */
  SCAN_K8S_GIT_IMAGE: z.string().min(1).default('alpine/git:latest'),
  SCAN_K8S_TTL_SECONDS: env.int(600, 0),
  SCAN_K8S_POLL_MS: env.int(2000, 50),
});

export type ScanningConfig = z.infer<typeof scanningConfigSchema>;

export function readScanningConfig(e: NodeJS.ProcessEnv) {
  const config = loadConfig(scanningConfigSchema, e);
  const scannerPath = [...(config.SCANNER_PATH ?? '').split(path.delimiter).filter(Boolean), npmBinDir()];
  return { ...config, scannerPath, sandbox: sandboxSettings(config, scannerPath) };
}

/** The sandbox sees the scanners' install folders and the rules; never the data directory (checked at start). */
function sandboxSettings(config: ScanningConfig, scannerPath: string[]): Omit<SandboxSettings, 'hiddenPaths'> {
  return {
    mode: config.SCAN_SANDBOX,
    uid: config.SCAN_SANDBOX_UID,
    gid: config.SCAN_SANDBOX_GID,
    limits: {
      cpuSeconds: config.SCAN_SANDBOX_CPU_SECONDS,
      memoryBytes: config.SCAN_SANDBOX_MEMORY_MB * 1024 * 1024,
      processes: config.SCAN_SANDBOX_PROCESSES,
      fileSizeBytes: config.SCAN_SANDBOX_MAX_FILE_MB * 1024 * 1024,
      openFiles: config.SCAN_SANDBOX_OPEN_FILES,
    },
    readOnlyPaths: [
      ...new Set([
        ...scannerPath.map(installPrefixOf).filter((p): p is string => p !== undefined),
        path.resolve(config.SCANNER_RULES_DIR),
      ]),
    ],
  };
}
