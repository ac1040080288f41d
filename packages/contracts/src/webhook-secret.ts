/** Standard Webhooks secrets (https://www.standardwebhooks.com): `whsec_` and base64 of the key bytes. */
export const STANDARD_SECRET_PREFIX = 'whsec_';

/** Why a `whsec_` secret is not usable, or undefined when it is (or is not a `whsec_` secret). */
export function standardSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return 'must be whsec_ followed by base64';
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < 24 || bytes > 64) return `must carry 24 to 64 bytes after whsec_ (has ${bytes})`;
  return undefined;
}
