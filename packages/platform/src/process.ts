import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';

/** Whether a process with this pid exists; one of another user counts (signalling it is refused, not failed). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ProcessOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  /** Keeps at most this much of stdout and of stderr (the rest is counted, not kept). */
  outputLimitBytes?: number;
  /** Aborting kills the process group at once (stop requests). */
  signal?: AbortSignal;
  /** Told the child's pid (= its process group id) once it runs, e.g. to record it for a later cleanup. */
  onSpawn?: (pid: number) => void;
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Output beyond the limit was dropped. */
  truncated: boolean;
  /** Set when the binary could not be started (ENOENT: not installed). */
  spawnError?: NodeJS.ErrnoException;
}

/**
 * Runs a program with argv only (never a shell) in its own process group, so a timeout or an abort
 * kills it with everything it started. Output is capped so a chatty tool cannot exhaust memory.
 */
export function runProcess(binary: string, argv: string[], opts: ProcessOptions): Promise<ProcessResult> {
  const limit = opts.outputLimitBytes ?? 1024 * 1024;
  return new Promise((resolve) => {
    const child = spawn(binary, argv, {
      env: opts.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid) opts.onSpawn?.(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (chunks: Buffer[], size: () => number, add: (n: number) => void) => (d: Buffer) => {
      const room = limit - size();
      if (room <= 0) {
        truncated = true;
        return;
      }
      if (d.length > room) truncated = true;
      const kept = d.length > room ? d.subarray(0, room) : d;
      chunks.push(kept);
      add(kept.length);
    };
    child.stdout.on(
      'data',
      collect(
        out,
        () => outBytes,
        (n) => (outBytes += n),
      ),
    );
    child.stderr.on(
      'data',
      collect(
        err,
        () => errBytes,
        (n) => (errBytes += n),
      ),
    );
    const done = (code: number | null, spawnError?: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        aborted,
        truncated,
        spawnError,
      });
    };
    child.on('error', (e: NodeJS.ErrnoException) => done(null, e));
    child.on('close', (code) => done(code));
  });
}

/** The first executable file `name` in `dirs`, in order; undefined when none holds one. */
export function findExecutable(dirs: readonly string[], name: string): string | undefined {
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
