import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { readErrorBody } from '@bulwark/platform/error-body';
import { serverError, usageError } from '../errors';
import type { Issue } from './types';

/** Where the API is and who calls it: flags first, then BULWARK_URL and BULWARK_TOKEN. */
export interface ApiConfig {
  url: string;
  token: string;
}

export function apiConfig(flags: { url?: string; token?: string }, env: NodeJS.ProcessEnv): ApiConfig {
  const url = flags.url ?? env.BULWARK_URL;
  const token = flags.token ?? env.BULWARK_TOKEN;
  if (!url) throw usageError('no Bulwark address: set BULWARK_URL (e.g. https://bulwark.example.com) or pass --url');
  if (!token) throw usageError('no API token: set BULWARK_TOKEN (create one with POST /api/v1/token) or pass --token');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`BULWARK_URL is not a URL: ${url}`);
  }
  if (!/^https?:$/.test(parsed.protocol)) throw usageError(`BULWARK_URL must be http or https: ${url}`);
  return { url: parsed.toString().replace(/\/+$/, ''), token };
}

const REQUEST_TIMEOUT_MS = 60_000;

/** A thin client of /api/v1: JSON in and out, errors turned into exit codes. */
export class ApiClient {
  constructor(private readonly config: ApiConfig) {}

  get<T>(pathAndQuery: string): Promise<T> {
    return this.request('GET', pathAndQuery).then((text) => (text ? JSON.parse(text) : undefined) as T);
  }

  /** Issues matching a query, page after page by keyset (stable while scans add issues). */
  async *issues(query: URLSearchParams): AsyncGenerator<{ items: Issue[]; total: number }> {
    const q = new URLSearchParams(query);
    q.set('limit', '1000');
    for (;;) {
      const page = await this.get<{ items: Issue[]; total: number; next_cursor: string | null }>(
        `/api/v1/issues?${q.toString()}`,
      );
      yield page;
      if (!page.next_cursor) return;
      q.set('cursor', page.next_cursor);
    }
  }

  /** A file the API produces (an export), as its text. */
  text(pathAndQuery: string): Promise<string> {
    return this.request('GET', pathAndQuery);
  }

  post<T>(pathAndQuery: string, body?: unknown): Promise<T> {
    return this.request(
      'POST',
      pathAndQuery,
      body === undefined ? undefined : { type: 'application/json', data: JSON.stringify(body) },
    ).then((text) => (text ? JSON.parse(text) : undefined) as T);
  }

  /** Streams a file as the request body: a report of hundreds of megabytes is never held in memory. */
  upload<T>(pathAndQuery: string, file: string): Promise<T> {
    let size: number;
    try {
      size = fs.statSync(file).size;
    } catch {
      throw usageError(`cannot read ${file}`);
    }
    const stream = Readable.toWeb(fs.createReadStream(file)) as ReadableStream<Uint8Array>;
    return this.request(
      'POST',
      pathAndQuery,
      { type: 'application/octet-stream', data: stream, length: size },
      path.basename(file),
    ).then((text) => JSON.parse(text) as T);
  }

  /** The answer's text; an error status becomes the matching CliError. */
  private async request(
    method: string,
    pathAndQuery: string,
    body?: { type: string; data: string | ReadableStream<Uint8Array>; length?: number },
    what?: string,
  ): Promise<string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.token}`,
      accept: 'application/json',
    };
    if (body) headers['content-type'] = body.type;
    if (body?.length !== undefined) headers['content-length'] = String(body.length);
    let res: Response;
    try {
      res = await fetch(`${this.config.url}${pathAndQuery}`, {
        method,
        headers,
        body: body?.data,
        redirect: 'error',
        // Uploads take as long as the file needs; everything else answers within the timeout.
        signal: body && typeof body.data !== 'string' ? undefined : AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(body && typeof body.data !== 'string' ? { duplex: 'half' } : {}),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw serverError(`cannot reach ${this.config.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    if (res.ok) return text;
    // Not Bulwark's error body (a proxy's page): the status says enough.
    const error = readErrorBody(text);
    const message = error?.message ?? `HTTP ${res.status}`;
    const fields = error?.details?.map((d) => `${d.field} ${d.problem}`).join('; ');
    const full = `${method} ${pathAndQuery.split('?')[0]}${what ? ` (${what})` : ''}: ${message}${fields && !message.includes(fields) ? ` (${fields})` : ''}`;
    if (res.status === 401) throw usageError(`the API token was refused: ${message}`);
    if (res.status === 403) throw usageError(`the API token may not do this: ${message}`);
    if (res.status >= 400 && res.status < 500) throw usageError(full);
    throw serverError(full);
  }
}
