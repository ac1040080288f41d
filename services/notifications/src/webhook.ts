/** Where and how a webhook is called. */
export interface WebhookTarget {
  url: string;
  timeoutSeconds: number;
  authHeaderName: string | null;
  authHeaderValue: string | null;
}

export interface WebhookResult {
  delivered: boolean;
  status: number | null;
  error: string | null;
  duration_ms: number;
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

/**
 * POSTs one event. Only a 2xx answer counts as delivered; redirects are not followed, so the
 * token header never reaches an address the notifier was not configured with.
 */
export async function callWebhook(target: WebhookTarget, body: WebhookBody, deliveryId: string): Promise<WebhookResult> {
  const started = Date.now();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Bulwark-Webhook/1', 'x-bulwark-event': body.type, 'x-bulwark-delivery': deliveryId };
  if (target.authHeaderName && target.authHeaderValue) headers[target.authHeaderName.toLowerCase()] = target.authHeaderValue;
  try {
    const res = await fetch(target.url, { method: 'POST', headers, body: JSON.stringify(body), redirect: 'manual', signal: AbortSignal.timeout(target.timeoutSeconds * 1000) });
    await res.body?.cancel();
    const delivered = res.status >= 200 && res.status < 300;
    return { delivered, status: res.status, error: delivered ? null : `HTTP ${res.status}`, duration_ms: Date.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${target.timeoutSeconds} s` : e.cause?.code ?? e.cause?.message ?? e.message;
    return { delivered: false, status: null, error: reason, duration_ms: Date.now() - started };
  }
}
