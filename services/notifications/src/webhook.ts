import { createHmac } from 'node:crypto';
import dns from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { Agent, fetch } from 'undici';
import { counter } from '@bulwark/platform';
import { isBlockedAddress } from './domain/target-guard';

const webhookDeliveries = counter(
  'bulwark_webhook_deliveries_total',
  'Webhook calls by outcome: delivered (2xx), failed (another answer or none), refused (an address the policy blocks)',
  ['outcome'],
);

/** Where and how a webhook is called. */
export interface WebhookTarget {
  url: string;
  timeoutSeconds: number;
  authHeaderName: string | null;
  authHeaderValue: string | null;
  signingSecret?: string | null;
}

export interface WebhookResult {
  delivered: boolean;
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** The target can never be reached (a refused address): retrying is pointless. */
  permanent?: boolean;
}

/** The JSON body of every webhook call. */
export interface WebhookBody {
  id: string;
  type: string;
  occurred_at: string;
  project_code: string | null;
  message: string;
  message_ru: string;
  data: Record<string, unknown>;
}

const BLOCKED = 'EBLOCKEDTARGET';
const blocked = (address: string) => Object.assign(new Error(`target address ${address} is not allowed (NOTIFY_BLOCK_LOCAL_TARGETS)`), { code: BLOCKED });

/** Resolves as the system does, then refuses blocked addresses: checked when connecting, so a DNS answer cannot change in between. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, options, (err, address, family) => {
    if (err) return callback(err, address as string, family);
    const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
    const refused = all.find(isBlockedAddress);
    if (refused) return callback(blocked(refused) as NodeJS.ErrnoException, '', 0);
    callback(null, address as string, family);
  });
};

/** Calls webhooks; with `blockLocalTargets`, never this host, link-local or metadata addresses. */
export class WebhookClient {
  private readonly agent: Agent;

  constructor(private readonly blockLocalTargets: boolean) {
    this.agent = new Agent(blockLocalTargets ? { connect: { lookup: guardedLookup } } : {});
  }

  /**
   * POSTs one event. Only a 2xx answer counts as delivered; redirects are not followed, so the
   * token header never reaches an address the notifier was not configured with.
   */
  async call(target: WebhookTarget, body: WebhookBody, deliveryId: string): Promise<WebhookResult> {
    const result = await this.post(target, body, deliveryId);
    webhookDeliveries.inc({ outcome: result.delivered ? 'delivered' : result.permanent ? 'refused' : 'failed' });
    return result;
  }

  private async post(target: WebhookTarget, body: WebhookBody, deliveryId: string): Promise<WebhookResult> {
    const started = Date.now();
    // An address literal is connected to without a lookup, so it is checked here.
    const host = new URL(target.url).hostname.replace(/^\[|\]$/g, '');
    if (this.blockLocalTargets && isIP(host) && isBlockedAddress(host)) return { delivered: false, status: null, error: blocked(host).message, duration_ms: 0, permanent: true };
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Bulwark-Webhook/1', 'x-bulwark-event': body.type, 'x-bulwark-delivery': deliveryId };
    if (target.authHeaderName && target.authHeaderValue) headers[target.authHeaderName.toLowerCase()] = target.authHeaderValue;
    const text = JSON.stringify(body);
    if (target.signingSecret) headers['x-bulwark-signature'] = `sha256=${createHmac('sha256', target.signingSecret).update(text).digest('hex')}`;
    try {
      const res = await fetch(target.url, { method: 'POST', headers, body: text, redirect: 'manual', dispatcher: this.agent, signal: AbortSignal.timeout(target.timeoutSeconds * 1000) });
      await res.body?.cancel();
      const delivered = res.status >= 200 && res.status < 300;
      return { delivered, status: res.status, error: delivered ? null : `HTTP ${res.status}`, duration_ms: Date.now() - started };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      if (e.cause?.code === BLOCKED) return { delivered: false, status: null, error: e.cause.message ?? BLOCKED, duration_ms: Date.now() - started, permanent: true };
      const reason = e.name === 'TimeoutError' ? `no answer within ${target.timeoutSeconds} s` : e.cause?.code ?? e.cause?.message ?? e.message;
      return { delivered: false, status: null, error: reason, duration_ms: Date.now() - started };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
