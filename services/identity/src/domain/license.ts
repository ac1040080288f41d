import { COMMUNITY_LIMITS, daysLeft, LicenseDocument, LicenseLimits, licenseState } from '@bulwark/contracts';

/** The limits in force: the license's while it has not expired, else the community edition's. */
export function limitsInForce(doc: LicenseDocument | undefined, now = Date.now()): LicenseLimits {
  const state = licenseState(doc, now);
  return doc && (state === 'valid' || state === 'expiring') ? doc.limits : COMMUNITY_LIMITS;
}

export type ExpiryNotice = { kind: 'expiring'; threshold: number; daysLeft: number } | { kind: 'expired' };

/**
 * Which expiry notice is due now, if any. `thresholds` are days before expiry (30, 14, 7, 1): one
 * notice goes out when the days left reach a threshold not yet notified, for the smallest one
 * reached (a license installed with 5 days left sends one notice, not four), and one when it expires.
 */
export function dueExpiryNotice(
  doc: LicenseDocument,
  sent: { expiringNoticeDays: number | null; expiredNoticeSent: boolean },
  thresholds: number[],
  now = Date.now(),
): ExpiryNotice | undefined {
  if (licenseState(doc, now) === 'expired') return sent.expiredNoticeSent ? undefined : { kind: 'expired' };
  const left = daysLeft(doc.expires_at, now);
  const reached = thresholds.filter((t) => left <= t);
  if (reached.length === 0) return undefined;
  const threshold = Math.min(...reached);
  if (sent.expiringNoticeDays !== null && sent.expiringNoticeDays <= threshold) return undefined;
  return { kind: 'expiring', threshold, daysLeft: left };
}

/** What is wrong with installing this license here now, or undefined. */
export function installProblem(doc: LicenseDocument, installationId: string, now = Date.now()): string | undefined {
  if (doc.installation_id !== installationId)
    return `the license is for installation ${doc.installation_id}, not this one (${installationId}); see GET /api/v1/license/environment`;
  if (Date.parse(doc.expires_at) <= now) return `the license expired at ${doc.expires_at}`;
  return undefined;
}
