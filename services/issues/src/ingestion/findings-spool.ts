import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';

/** Spool folders are named with their process's id, so a later start can tell those a killed process left behind. */
const PREFIX = 'bulwark-findings-';
const OWNER = new RegExp(`^${PREFIX}(\\d+)-`);

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A scan's findings read from scanning into a file of this process before the ingestion's
 * transaction opens, one chunk (the findings' JSON) a line: the transaction then reads only its own
 * database and this file, and memory holds one chunk at a time, whatever the scan's size.
 */
export class FindingsSpool {
  private constructor(private readonly dir: string) {}

  private get file(): string {
    return join(this.dir, 'chunks.jsonl');
  }

  static async fill(chunks: AsyncIterable<{ findingsJson: string[] }>): Promise<FindingsSpool> {
    const spool = new FindingsSpool(await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`)));
    const out = createWriteStream(spool.file);
    try {
      for await (const chunk of chunks) {
        if (!out.write(`${JSON.stringify(chunk.findingsJson)}\n`)) await once(out, 'drain');
      }
      out.end();
      await finished(out);
      return spool;
    } catch (err) {
      out.destroy();
      await spool.remove();
      throw err;
    }
  }

  /**
   * The chunks in the order scanning sent them, one line read at a time: the file stream's own
   * backpressure holds the rest on disk (readline's iterator would buffer up to 1,024 lines, the
   * whole spool of a large scan, while the transaction writes).
   */
  async *chunks(): AsyncGenerator<string[]> {
    let parts: string[] = [];
    for await (const piece of createReadStream(this.file, { encoding: 'utf8' }) as AsyncIterable<string>) {
      let start = 0;
      for (let nl = piece.indexOf('\n'); nl >= 0; nl = piece.indexOf('\n', start)) {
        parts.push(piece.slice(start, nl));
        start = nl + 1;
        yield this.chunkOf(parts.join(''));
        parts = [];
      }
      parts.push(piece.slice(start));
    }
    const last = parts.join('');
    if (last) yield this.chunkOf(last);
  }

  private chunkOf(line: string): string[] {
    const chunk: unknown = JSON.parse(line);
    if (!Array.isArray(chunk) || chunk.some((j) => typeof j !== 'string'))
      throw new Error(`The findings spool ${this.file} holds a line that is not a chunk of findings`);
    return chunk as string[];
  }

  /**
   * Removes the spools of processes no longer running (killed mid-ingestion): a spool is removed
   * when its ingestion ends, so one whose process is gone is nobody's. Other processes' live spools
   * (replicas, other systems on the host) stay.
   */
  static async removeStale(): Promise<number> {
    const stale = (await readdir(tmpdir())).filter((name) => {
      const pid = Number(OWNER.exec(name)?.[1] ?? NaN);
      return Number.isInteger(pid) && pid !== process.pid && !processAlive(pid);
    });
    await Promise.all(stale.map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })));
    return stale.length;
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}
