import { createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { int4, isoDateTime, TRIMMED } from './common';
import { z } from './zod';

/**
 * The license document: what a vendor signs and Bulwark verifies. The text form is
 * `BWL1.<base64url of the document's JSON>.<base64url of its Ed25519 signature>`; the signature
 * covers the JSON bytes exactly as sent, so no canonical form of JSON is needed.
 */
export const LICENSE_PREFIX = 'BWL1';

/** What a license limits. Creating one more than the limit answers 409 naming it; nothing stored stops working. */
export const LICENSE_LIMIT_KEYS = ['projects', 'users', 'scanning_processes'] as const;
export type LicenseLimitKey = (typeof LICENSE_LIMIT_KEYS)[number];
export type LicenseLimits = Record<LicenseLimitKey, number | null>;

export const LICENSE_LIMIT_MEANINGS: Record<LicenseLimitKey, string> = {
  projects: 'projects that exist (archived ones included, deleted ones not)',
  users: 'users that exist (directory and single sign-on users included, deleted ones not)',
  scanning_processes:
    'scans in flight at once across the deployment (queued, running or parsing; uploads are not counted)',
};

/** The edition without a license (or with an expired one): limits generous enough for a real team. */
export const COMMUNITY_EDITION = 'community';
export const COMMUNITY_LIMITS: LicenseLimits = { projects: 100, users: 100, scanning_processes: 25 };

/** Days before expiry at which the status turns `expiring` and the first security event is sent. */
export const LICENSE_EXPIRING_DAYS = 30;

const limit = int4(0).nullable().openapi({ description: 'The most allowed; null: unlimited' });

export const licenseDocument = z
  .object({
    id: z.string().min(1).max(100).openapi({ description: 'The vendor\u2019s id of this license' }),
    licensee: z.string().trim().min(1).max(255),
    edition: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be lower-case letters, digits, - and _')
      .openapi({ example: 'enterprise' }),
    installation_id: z
      .uuid()
      .openapi({ description: 'The installation this license is for (GET /api/v1/license/environment)' }),
    issued_at: isoDateTime,
    expires_at: isoDateTime,
    limits: z.object({ projects: limit, users: limit, scanning_processes: limit }).strict(),
    features: z
      .array(z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be lower-case letters, digits, ., - and _'))
      .max(100),
  })
  .strict()
  .openapi('LicenseDocument');

export type LicenseDocument = z.infer<typeof licenseDocument>;

/** The form readLicense reads, trimmed: BWL1, a document and a signature, joined by dots, neither empty. */
export const LICENSE_FORM = new RegExp(
  `^[${TRIMMED}]*${LICENSE_PREFIX}\\.[^.\\u0000]+\\.[^.\\u0000]*[^.\\u0000${TRIMMED}][${TRIMMED}]*$`,
);
export const LICENSE_FORM_PROBLEM = `not a license: expected ${LICENSE_PREFIX}.<document>.<signature>`;

/** Why a license text was refused, for the 400 answer. */
export class LicenseRejected extends Error {}

const b64url = (data: Buffer) => data.toString('base64url');

/** Signs a document with the vendor's Ed25519 private key (the vendor's tool and the project's test script). */
export function signLicense(doc: LicenseDocument, privateKey: KeyObject | string): string {
  const parsed = licenseDocument.safeParse(doc);
  if (!parsed.success)
    throw new LicenseRejected(
      `not a license document: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  const body = Buffer.from(JSON.stringify(parsed.data), 'utf8');
  return `${LICENSE_PREFIX}.${b64url(body)}.${b64url(sign(null, body, privateKey))}`;
}

/**
 * Reads a license text: its form, the Ed25519 signature under `publicKey`, then the document's
 * fields. Throws LicenseRejected saying which; whether it is expired or for this installation is
 * the caller's to decide.
 */
export function readLicense(text: string, publicKey: KeyObject | string): LicenseDocument {
  const parts = text.trim().split('.');
  if (parts.length !== 3 || parts[0] !== LICENSE_PREFIX || !parts[1] || !parts[2])
    throw new LicenseRejected(LICENSE_FORM_PROBLEM);
  const body = Buffer.from(parts[1], 'base64url');
  const signature = Buffer.from(parts[2], 'base64url');
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  let valid = false;
  try {
    valid = verify(null, body, key, signature);
  } catch {
    valid = false;
  }
  if (!valid)
    throw new LicenseRejected('the signature does not verify: the license was changed or signed by another key');
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new LicenseRejected('the signed document is not JSON');
  }
  const parsed = licenseDocument.safeParse(json);
  if (!parsed.success)
    throw new LicenseRejected(
      `the signed document is not a license: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  if (Date.parse(parsed.data.expires_at) <= Date.parse(parsed.data.issued_at))
    throw new LicenseRejected('the license expires before it was issued');
  return parsed.data;
}

export type LicenseState = 'valid' | 'expiring' | 'expired' | 'community';

/** Whole days left until `expiresAt` (rounded up: one hour left is one day), never below 0. */
export function daysLeft(expiresAt: string, now = Date.now()): number {
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 86_400_000));
}

/** The state of an installed license (none: community). */
export function licenseState(doc: Pick<LicenseDocument, 'expires_at'> | undefined, now = Date.now()): LicenseState {
  if (!doc) return 'community';
  if (Date.parse(doc.expires_at) <= now) return 'expired';
  return daysLeft(doc.expires_at, now) <= LICENSE_EXPIRING_DAYS ? 'expiring' : 'valid';
}
