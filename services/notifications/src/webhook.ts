import { counter, OUTBOUND_REFUSED, outboundDispatcher, OutboundPolicy, unreachableMessage } from '@bulwark/platform';
import { WEBHOOK_PAYLOAD_VERSION, WebhookPayloadFormat } from '@bulwark/contracts';
import { Agent, fetch } from 'undici';
import { cefLine } from './domain/cef';
import type { WebhookBody } from './domain/webhook-body';
import { legacySignature, standardSignature } from './domain/signatures';
import type { SecurityEventRecord } from './store/events';

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
  /** The current secret first, then one being rotated out (both sign until the old one expires). */
  signingSecrets: string[];
  /** json: the body below; cef: one CEF line (text/plain), signed the same way. */
  payloadFormat: WebhookPayloadFormat;
}

/** A 2xx answer carries its status; anything else says why it failed. */
export type WebhookResult =
  | { delivered: true; status: number; error: null; duration_ms: number }
  | {
      delivered: false;
      status: number | null;
      error: string;
      duration_ms: number;
      /** The outbound policy refuses the target's address: retrying is pointless. */
      permanent?: boolean;
    };

/** A recorded event as its webhooks send it. */
export const webhookBody = (e: SecurityEventRecord): WebhookBody => ({
  id: e.id,
  type: e.type,
  occurred_at: e.occurredAt,
  project_code: e.projectCode,
  message: e.message,
  message_ru: e.messageRu,
  data: e.data,
});

// Failures to connect answer like a refused address: the test of a notifier must not tell them apart.
const NOT_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];

/** Calls webhooks, only at addresses the outbound policy allows (checked as each connection is made). */
export class WebhookClient {
  private readonly agent: Agent;

  constructor(policy: OutboundPolicy) {
    this.agent = outboundDispatcher(policy);
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
    const cef = target.payloadFormat === 'cef';
    const text = cef ? cefLine(body) : JSON.stringify({ version: WEBHOOK_PAYLOAD_VERSION, ...body });
    // Standard Webhooks headers; webhook-id is the delivery's, the same on every retry, so receivers can dedupe.
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': cef ? 'text/plain; charset=utf-8' : 'application/json',
      'user-agent': 'Bulwark-Webhook/1',
      'webhook-id': deliveryId,
      'webhook-timestamp': String(timestamp),
      'x-bulwark-event': body.type,
      'x-bulwark-delivery': deliveryId,
    };
    if (target.authHeaderName && target.authHeaderValue)
      headers[target.authHeaderName.toLowerCase()] = target.authHeaderValue;
    const [current] = target.signingSecrets;
    if (current) {
      headers['webhook-signature'] = standardSignature(target.signingSecrets, deliveryId, timestamp, text);
      headers['x-bulwark-signature'] = legacySignature(current, text);
    }
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers,
        body: text,
        redirect: 'manual',
        dispatcher: this.agent,
        signal: AbortSignal.timeout(target.timeoutSeconds * 1000),
      });
      await res.body?.cancel();
      const duration_ms = Date.now() - started;
      return res.status >= 200 && res.status < 300
        ? { delivered: true, status: res.status, error: null, duration_ms }
        : { delivered: false, status: res.status, error: `HTTP ${res.status}`, duration_ms };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const code = e.cause?.code ?? '';
      if (code === OUTBOUND_REFUSED || NOT_CONNECTED.includes(code)) {
        return {
          delivered: false,
          status: null,
          error: unreachableMessage(new URL(target.url).host),
          duration_ms: Date.now() - started,
          ...(code === OUTBOUND_REFUSED ? { permanent: true } : {}),
        };
      }
      const reason =
        e.name === 'TimeoutError'
          ? `no answer within ${target.timeoutSeconds} s`
          : (e.cause?.code ?? e.cause?.message ?? e.message);
      return { delivered: false, status: null, error: reason, duration_ms: Date.now() - started };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
