import { randomUUID } from 'node:crypto';
import { COMMUNITY_LIMITS, LicenseDocument, signLicense } from '@bulwark/contracts';

/**
 * The test vendor key: test systems trust its public half (LICENSE_PUBLIC_KEY) instead of the
 * built-in vendor key, and tests and `scripts/license.ts` issue licenses with its private half.
 * It is public on purpose and signs nothing a real installation accepts.
 */
export const TEST_LICENSE_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEA08e0upcutI1yqNEMjJmDit4iq8FDOdHEt7Ygn7MlDPw=
-----END PUBLIC KEY-----`;

export const TEST_LICENSE_PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIHJ3N2oZwRq2MCfCkXNEbnzeib2M/iwtk+LmxMa6o38O
-----END PRIVATE KEY-----`;

/** A license for `installationId`, valid from now for `days` (fractions allowed), signed with the test key (or `privateKey`). */
export function issueTestLicense(
  installationId: string,
  over: Partial<LicenseDocument> & { days?: number } = {},
  privateKey = TEST_LICENSE_PRIVATE_KEY,
): string {
  const { days = 365, ...fields } = over;
  const now = Date.now();
  const doc: LicenseDocument = {
    id: `test-${randomUUID().slice(0, 8)}`,
    licensee: 'Bulwark tests',
    edition: 'enterprise',
    installation_id: installationId,
    issued_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + days * 86_400_000).toISOString(),
    limits: { ...COMMUNITY_LIMITS },
    features: ['trackers', 'kubernetes_runner'],
    ...fields,
  };
  return signLicense(doc, privateKey);
}
