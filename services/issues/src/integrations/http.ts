import { OUTBOUND_REFUSED, outboundDispatcher, OutboundPolicy, unreachableMessage } from '@bulwark/platform';
import { Agent, fetch } from 'undici';
import { TrackerError } from './port';

export interface TrackerHttpOptions {
  timeoutMs: number;
  /** Calls per second to one tracker, from this process. */
  ratePerSecond: number;
  /** Attempts of one call when the tracker answers 429 or 5xx, or does not answer. */
  attempts: number;
}

const RETRIED = new Set([429, 502, 503, 504]);
const NOT_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'];

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

  private async waitTurn(base: string): Promise<void> {
    const gap = 1000 / this.options.ratePerSecond;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot.get(base) ?? 0);
    this.nextSlot.set(base, slot + gap);
    if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
  }

  /** One JSON call; answers the parsed body (undefined for 204), throws TrackerError otherwise; 404 answers `notFound`. */
  async json<T>(
    base: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    notFound?: T,
  ): Promise<T> {
    const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
    let lastError: TrackerError | undefined;
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
      const text = await res.text();
      if (res.status === 404 && notFound !== undefined) return notFound;
      if (res.status >= 200 && res.status < 300) return (text ? JSON.parse(text) : undefined) as T;
      lastError = new TrackerError(
        `${method} ${url.pathname} answered HTTP ${res.status}${trackerMessage(text)}`,
        res.status,
        !RETRIED.has(res.status),
      );
      if (lastError.permanent) throw lastError;
      await this.backoff(attempt, Number(res.headers.get('retry-after')));
    }
    throw lastError!;
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
