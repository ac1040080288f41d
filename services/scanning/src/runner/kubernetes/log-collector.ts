import { Writable } from 'node:stream';

/** The last `n` characters of a text, marked as cut when they are not all of it. */
export const tail = (text: string, n = 2000) => (text.length > n ? `…${text.slice(-n)}` : text);

/** Splits the scanner's log into the tool's output (kept as a tail) and the report frame. */
export class LogCollector extends Writable {
  private buffered = '';
  private output = '';
  frame: { exitCode: number; report?: Buffer } | undefined;
  /** A frame begun: its exit code, and the base64 lines of its report so far. */
  private pending: { exitCode: number; report: boolean; chunks: string[] } | undefined;

  constructor(private readonly marker: string) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.buffered += chunk.toString('utf8');
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines) this.line(line);
    cb();
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.buffered) this.line(this.buffered);
    this.buffered = '';
    cb();
  }

  private line(line: string): void {
    if (this.pending) {
      if (line === `${this.marker} end`) {
        this.frame = {
          exitCode: this.pending.exitCode,
          report: this.pending.report ? Buffer.from(this.pending.chunks.join(''), 'base64') : undefined,
        };
        this.pending = undefined;
      } else if (this.pending.report) this.pending.chunks.push(line.trim());
      return;
    }
    const start = line.startsWith(`${this.marker} `) ? /^\S+ (report|noreport) (\d+)$/.exec(line) : null;
    if (start) {
      this.pending = { exitCode: Number(start[2]), report: start[1] === 'report', chunks: [] };
      return;
    }
    this.output = tail(`${this.output}${line}\n`, 8000);
  }

  get log(): string {
    return tail(this.output.trim());
  }
}
