import type { ApiClient } from './api/client';
import type { ScanResult } from './api/types';
import { serverError } from './errors';

const TERMINAL = new Set<ScanResult['state']>(['completed', 'failed', 'stopped']);

/** A scan is done for a pipeline when it ended, and, when it completed, its findings are ingested and gated. */
export const isSettled = (s: ScanResult) =>
  TERMINAL.has(s.state) && (s.state !== 'completed' || s.quality_gate !== null);

export interface WaitOptions {
  timeoutSeconds: number;
  pollMs: number;
  /** Where progress goes: one rewritten line on a terminal, a plain line per change in a CI log. */
  out: NodeJS.WriteStream;
  /** Ends the wait early (Ctrl-C); the scan itself goes on unless the caller stops it. */
  signal: AbortSignal;
}

function describe(s: ScanResult): string {
  if (s.state === 'completed' && s.quality_gate === null) return 'ingesting findings';
  return `${s.state}${s.stage ? ` (${s.stage})` : ''} ${s.progress}%`;
}

/** Polls each scan until it settles; answers them in the order given. */
export async function waitForScans(api: ApiClient, ids: string[], opts: WaitOptions): Promise<ScanResult[]> {
  const deadline = Date.now() + opts.timeoutSeconds * 1000;
  const done = new Map<string, ScanResult>();
  const shown = new Map<string, string>();
  const tty = opts.out.isTTY === true;
  for (;;) {
    for (const id of ids) {
      if (done.has(id)) continue;
      const scan = await api.get<ScanResult>(`/api/v1/scan-result/${encodeURIComponent(id)}`);
      if (isSettled(scan)) done.set(id, scan);
      const line = `scan ${id}: ${describe(scan)}`;
      if (shown.get(id) !== line) {
        shown.set(id, line);
        opts.out.write(tty ? `\r\x1b[2K${line}${done.has(id) ? '\n' : ''}` : `${line}\n`);
      }
    }
    if (done.size === ids.length) return ids.flatMap((id) => done.get(id) ?? []);
    if (Date.now() > deadline)
      throw serverError(
        `gave up waiting after ${opts.timeoutSeconds} s; the scan goes on (bulwark gate --scan-result <id> looks again)`,
      );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, opts.pollMs);
      opts.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (opts.signal.aborted) throw opts.signal.reason as Error;
  }
}
