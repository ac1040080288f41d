import readline from 'node:readline';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { z } from 'zod';
import type { EpssFeed, EpssRecord, KevFeed } from '../domain/intel-feeds';

/** A feed that could not be used: its text says why (the error log and the sync answer show it). */
export class FeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedError';
  }
}

export interface FeedLimits {
  /** Bytes read from the source (compressed, when it is). */
  maxBytes: number;
  /** Bytes after gunzip: a small file must not expand into gigabytes. */
  maxDecompressedBytes: number;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;

/** The chunks of `source`, failing once more than `max` bytes passed (the source is then closed). */
async function* limited(source: AsyncIterable<Buffer>, max: number, what: string): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (seen > max) throw new FeedError(`${what} is larger than ${max} bytes`);
    yield chunk;
  }
}

/** Gunzip's own failures (Z_DATA_ERROR, a truncated file) as a FeedError; the source's pass unchanged. */
async function* gunzipped(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const gunzip = zlib.createGunzip();
  const input = Readable.from(source);
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('Z_')) throw new FeedError(`the feed is not valid gzip: ${(err as Error).message}`);
    throw err;
  }
}

/**
 * The feed's text, limited before and after gunzip (a gzip file is recognised by its first bytes,
 * whatever the URL or content type says): a small file must not expand into gigabytes.
 */
async function feedText(source: AsyncIterable<Buffer>, limits: FeedLimits): Promise<Readable> {
  const chunks = limited(source, limits.maxBytes, 'the feed');
  const first = await chunks.next();
  const head = first.done ? Buffer.alloc(0) : first.value;
  const all = (async function* () {
    if (head.length) yield head;
    yield* chunks;
  })();
  if (head[0] !== 0x1f || head[1] !== 0x8b) return Readable.from(all);
  return Readable.from(limited(gunzipped(all), limits.maxDecompressedBytes, 'the uncompressed feed'));
}

function probability(text: string | undefined, line: number, column: string): number {
  const n = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new FeedError(`line ${line}: ${column} must be a number from 0 to 1, got ${JSON.stringify(text ?? '')}`);
  return n;
}

/**
 * The FIRST EPSS daily file: `#model_version:…,score_date:…`, the header `cve,epss,percentile`, then
 * one CVE a line. Any line out of shape refuses the whole file, naming the line: half a feed is
 * never loaded. An empty feed is refused too (it would erase every score).
 */
export async function readEpss(source: AsyncIterable<Buffer>, limits: FeedLimits): Promise<EpssFeed> {
  const text = await feedText(source, limits);
  const lines = readline.createInterface({ input: text, crlfDelay: Infinity });
  let n = 0;
  let modelVersion: string | null = null;
  let scoreDate: string | null = null;
  let header = false;
  const records: EpssRecord[] = [];
  for await (const raw of lines) {
    n++;
    const line = raw.trim();
    if (line === '') continue;
    if (!header && line.startsWith('#')) {
      for (const part of line.slice(1).split(',')) {
        const [key, ...value] = part.split(':');
        if (key === 'model_version') modelVersion = value.join(':');
        if (key === 'score_date') scoreDate = value.join(':');
      }
      continue;
    }
    if (!header) {
      if (line.replace(/\s/g, '') !== 'cve,epss,percentile')
        throw new FeedError(`line ${n}: expected the header cve,epss,percentile`);
      if (scoreDate === null)
        throw new FeedError('not an EPSS file: no #model_version…,score_date… line before the header');
      header = true;
      continue;
    }
    const [cve, epss, percentile, extra] = line.split(',');
    if (extra !== undefined || !CVE.test(cve)) throw new FeedError(`line ${n}: expected CVE-YYYY-NNNN,epss,percentile`);
    records.push({ cve, epss: probability(epss, n, 'epss'), percentile: probability(percentile, n, 'percentile') });
  }
  if (!header) throw new FeedError('not an EPSS file: no cve,epss,percentile header');
  const date = scoreDate === null ? Number.NaN : Date.parse(scoreDate.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  if (Number.isNaN(date)) throw new FeedError('not an EPSS file: the first line names no score_date');
  if (records.length === 0) throw new FeedError('the EPSS file has no scores');
  return { modelVersion, scoreDate: new Date(date).toISOString(), records };
}

/** A calendar date the database takes: 2026-02-30 or year 0 would fail the load's insert, not the check. */
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (v) => v >= '0001' && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    'must be a date of the calendar',
  );
const kevSchema = z.object({
  catalogVersion: z.string().min(1).max(64),
  vulnerabilities: z
    .array(
      z.object({
        cveID: z.string().regex(CVE, 'must be a CVE id'),
        dateAdded: day,
        dueDate: day.nullable().optional(),
        knownRansomwareCampaignUse: z.string().max(64).optional(),
      }),
    )
    .min(1, 'the catalog lists no vulnerability'),
});

/** The CISA KEV catalog (JSON), checked against the fields Bulwark uses before any is read. */
export async function readKev(source: AsyncIterable<Buffer>, limits: FeedLimits): Promise<KevFeed> {
  const text = await feedText(source, limits);
  const chunks: Buffer[] = [];
  for await (const chunk of text) chunks.push(chunk as Buffer);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new FeedError('the KEV catalog is not JSON');
  }
  const parsed = kevSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FeedError(`the KEV catalog is not of the published shape: ${issue.path.join('.')} ${issue.message}`);
  }
  return {
    catalogVersion: parsed.data.catalogVersion,
    records: parsed.data.vulnerabilities.map((v) => ({
      cve: v.cveID,
      dateAdded: v.dateAdded,
      dueDate: v.dueDate ?? null,
      ransomware: v.knownRansomwareCampaignUse?.toLowerCase() === 'known',
    })),
  };
}
