import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';

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
    const spool = new FindingsSpool(await mkdtemp(join(tmpdir(), 'bulwark-findings-')));
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

  /** The chunks in the order scanning sent them. */
  async *chunks(): AsyncGenerator<string[]> {
    const lines = createInterface({ input: createReadStream(this.file), crlfDelay: Infinity });
    for await (const line of lines) {
      const chunk: unknown = JSON.parse(line);
      if (!Array.isArray(chunk) || chunk.some((j) => typeof j !== 'string'))
        throw new Error(`The findings spool ${this.file} holds a line that is not a chunk of findings`);
      yield chunk as string[];
    }
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}
