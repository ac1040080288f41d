import { createHmac } from 'node:crypto';
import { STANDARD_SECRET_PREFIX } from '@bulwark/contracts';

// Webhook signatures as Standard Webhooks defines them: a receiver verifies `webhook-signature` with
// any Standard Webhooks library, given the notifier's secret.

/**
 * The HMAC key of a secret: a `whsec_` secret is base64 of the key bytes (the standard's form); any
 * other secret, as notifiers made before the standard was adopted hold, is its own UTF-8 bytes (a
 * Standard Webhooks library verifies those as a "raw" secret).
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith(STANDARD_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * `webhook-signature`: one `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, separated by
 * spaces, so a receiver keeps verifying while a secret is rotated.
 */
export function standardSignature(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets
    .map(
      (s) => `v1,${createHmac('sha256', signingKey(s)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`,
    )
    .join(' ');
}

/** `X-Bulwark-Signature`, the signature of releases before Standard Webhooks: hex HMAC-SHA256 of the body alone. */
export function legacySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Until when a replaced signing secret still signs; null when there is none or it has expired. */
export function previousSecretUntil(n: {
  previousSigningSecretSealed: string | null;
  previousSigningSecretExpiresAt: string | null;
}): string | null {
  const until = n.previousSigningSecretExpiresAt;
  return n.previousSigningSecretSealed && until && Date.parse(until) > Date.now() ? until : null;
}
