import { AppError, OUTBOUND_REFUSED, outboundDispatcher, OutboundPolicy, unreachableMessage } from '@bulwark/platform';
import { decodeJson } from '@bulwark/contracts';
import { Agent, fetch, type Response } from 'undici';
import type { z } from 'zod';
import { TrackerError } from './port';

export interface TrackerHttpOptions {
  timeoutMs: number;
  /** Calls per second to one tracker, from this process. */
  ratePerSecond: number;
  /** Attempts of one call when the tracker answers 429 or 5xx, or does not answer. */
  attempts: number;
}

const RETRIED = new Set([429, 502, 503, 504]);
/** The largest answer read from a tracker: a search of a few hundred tickets is far below it. */
export const MAX_ANSWER_BYTES = 4 << 20;
const NOT_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'];

/** Calls to one tracker: its address, its credentials' headers and the path all its calls start with. */
export interface TrackerClient {
  json<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
    notFound?: z.output<S>,
  ): Promise<z.output<S>>;
}

/**
 * HTTP to task trackers: every connection passes the one outbound-address policy, calls to one
 * tracker are spaced to its rate, a 429/5xx or a lost connection is retried with backoff (Retry-After
 * honoured up to 10 s), and redirects are not followed, so credentials reach only the configured address.
 */
export class TrackerHttp {
  private readonly agent: Agent;
  /** When each tracker may be called next (per base address). */
  private readonly nextSlot = new Map<string, number>();

  constructor(
    policy: OutboundPolicy,
    private readonly options: TrackerHttpOptions,
  ) {
    this.agent = outboundDispatcher(policy);
  }

  /** A client for one tracker: each call goes to `base` + `prefix` + its path, with `headers`. */
  client(base: string, headers: Record<string, string>, prefix = ''): TrackerClient {
    return {
      json: (schema, method, path, body, notFound) =>
        this.json(schema, base, method, `${prefix}${path}`, headers, body, notFound),
    };
  }

  private async waitTurn(base: string): Promise<void> {
    const gap = 1000 / this.options.ratePerSecond;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot.get(base) ?? 0);
    this.nextSlot.set(base, slot + gap);
    if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
  }

  /**
   * One JSON call; answers the body checked against `schema` (an empty 2xx body is `undefined` to
   * it), throws TrackerError otherwise; 404 answers `notFound`. A tracker is another party's server:
   * an answer larger than MAX_ANSWER_BYTES, not JSON or not of the schema is refused, naming the field.
   */
  private async json<S extends z.ZodType>(
    schema: S,
    base: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    notFound?: z.output<S>,
  ): Promise<z.output<S>> {
    const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
    // Replaced by every attempt (there is at least one): what the last one met is what the caller sees.
    let lastError = new TrackerError(`${url.host}: no attempt was made`);
    for (let attempt = 1; attempt <= this.options.attempts; attempt++) {
      await this.waitTurn(url.origin);
      let res;
      try {
        res = await fetch(url, {
          method,
          redirect: 'manual',
          dispatcher: this.agent,
          signal: AbortSignal.timeout(this.options.timeoutMs),
          headers: {
            accept: 'application/json',
            'user-agent': 'Bulwark-Tracker/1',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        const code = e.cause?.code ?? '';
        if (code === OUTBOUND_REFUSED) throw new TrackerError(unreachableMessage(url.host), null, true);
        lastError = new TrackerError(
          NOT_CONNECTED.includes(code)
            ? unreachableMessage(url.host)
            : e.name === 'TimeoutError'
              ? `no answer from ${url.host} within ${this.options.timeoutMs} ms`
              : `${url.host}: ${code || e.message}`,
        );
        await this.backoff(attempt);
        continue;
      }
      const text = await boundedText(res, `${method} ${url.pathname}`);
      if (res.status === 404 && notFound !== undefined) return notFound;
      if (res.status >= 200 && res.status < 300) return decodeAnswer(schema, text, `${method} ${url.pathname}`);
      lastError = new TrackerError(
        `${method} ${url.pathname} answered HTTP ${res.status}${trackerMessage(text)}`,
        res.status,
        !RETRIED.has(res.status),
      );
      if (lastError.permanent) throw lastError;
      await this.backoff(attempt, Number(res.headers.get('retry-after')));
    }
    throw lastError;
  }

  private async backoff(attempt: number, retryAfterSeconds = NaN): Promise<void> {
    if (attempt >= this.options.attempts) return;
    const ms =
      Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
        ? Math.min(retryAfterSeconds * 1000, 10_000)
        : Math.min(250 * 2 ** (attempt - 1), 5000);
    await new Promise((r) => setTimeout(r, ms));
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The body as text, refused (permanently) once it passes MAX_ANSWER_BYTES, declared or as it streams. */
async function boundedText(res: Response, call: string): Promise<string> {
  const tooLarge = () => new TrackerError(`${call} answered more than ${MAX_ANSWER_BYTES} bytes`, res.status, true);
  if (Number(res.headers.get('content-length')) > MAX_ANSWER_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return '';
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of res.body as AsyncIterable<Uint8Array>) {
    size += part.byteLength;
    if (size > MAX_ANSWER_BYTES) throw tooLarge();
    parts.push(Buffer.from(part));
  }
  return Buffer.concat(parts).toString('utf8');
}

function decodeAnswer<S extends z.ZodType>(schema: S, text: string, call: string): z.output<S> {
  if (!text) {
    const empty = schema.safeParse(undefined);
    if (empty.success) return empty.data;
    throw new TrackerError(`${call} answered an empty body`, null, true);
  }
  try {
    return decodeJson(schema, text, 'answer');
  } catch (err) {
    if (err instanceof AppError) throw new TrackerError(`${call} answered unexpectedly: ${err.message}`, null, true);
    throw err;
  }
}

/** The tracker's own words about a refusal (Redmine `errors`, Jira `errorMessages`/`errors`), short. */
function trackerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { errors?: unknown; errorMessages?: unknown };
    const parts = [
      ...(Array.isArray(body.errorMessages) ? (body.errorMessages as unknown[]) : []),
      ...(Array.isArray(body.errors)
        ? (body.errors as unknown[])
        : body.errors && typeof body.errors === 'object'
          ? Object.entries(body.errors).map(([k, v]) => `${k}: ${String(v)}`)
          : []),
    ].map(String);
    return parts.length ? `: ${parts.join('; ').slice(0, 300)}` : '';
  } catch {
    return '';
  }
}
