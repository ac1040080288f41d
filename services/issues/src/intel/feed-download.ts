import { OUTBOUND_REFUSED, outboundDispatcher, OutboundPolicy, unreachableMessage } from '@bulwark/platform';
import { Agent, fetch } from 'undici';
import { FeedError } from './feed-formats';

/**
 * Downloads of the intelligence feeds: every connection passes the outbound-address policy, the
 * whole download (body included) has one deadline, and no redirect is followed (a feed's address is
 * the one an administrator saved; a redirect elsewhere is refused, naming where it led).
 */
export class FeedDownloader {
  private readonly agent: Agent;

  constructor(
    policy: OutboundPolicy,
    private readonly timeoutMs: number,
  ) {
    this.agent = outboundDispatcher(policy);
  }

  /** The body's chunks as they arrive; every failure, the deadline included, is a FeedError saying what happened. */
  async *download(address: string): AsyncGenerator<Buffer> {
    const url = new URL(address);
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await fetch(url, {
        redirect: 'manual',
        dispatcher: this.agent,
        signal,
        headers: { 'user-agent': 'Bulwark-Intel/1', accept: '*/*' },
      });
      if (res.status !== 200 || !res.body) {
        await res.body?.cancel();
        const where = res.headers.get('location');
        throw new FeedError(`${url.host} answered HTTP ${res.status}${where ? ` (to ${where})` : ''}`);
      }
      for await (const chunk of res.body) yield Buffer.from(chunk);
    } catch (err) {
      throw this.reason(err, url.host);
    }
  }

  private reason(err: unknown, host: string): Error {
    if (err instanceof FeedError) return err;
    const e = err as Error & { cause?: { code?: string } };
    const code = e.cause?.code ?? (e as NodeJS.ErrnoException).code ?? '';
    if (code === OUTBOUND_REFUSED || code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return new FeedError(unreachableMessage(host));
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      return new FeedError(`no complete answer from ${host} within ${this.timeoutMs} ms`);
    return new FeedError(`${host}: ${code || e.message}`);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
