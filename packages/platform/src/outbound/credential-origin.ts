import { invalidField } from '../errors';
import { gitHost, isSshUrl } from '../git';

const DEFAULT_PORTS: Record<string, string> = {
  'http:': '80',
  'https:': '443',
  'ssh:': '22',
  'ldap:': '389',
  'ldaps:': '636',
};

/**
 * Where a credential sent to `url` goes: its scheme, host and port, the default port written out
 * (`https://git.example:443`); an scp-like Git address (`git@host:path`) is ssh on port 22.
 * Undefined for what is not a URL.
 */
export function credentialOrigin(url: string): string | undefined {
  if (isSshUrl(url) && !url.startsWith('ssh://')) return `ssh://${gitHost(url).toLowerCase()}:22`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!parsed.hostname) return undefined;
  return `${parsed.protocol}//${parsed.hostname.toLowerCase()}:${parsed.port || DEFAULT_PORTS[parsed.protocol] || ''}`;
}

/**
 * Refuses (400 naming `field`) to send a credential stored for the URLs `storedFor` to `url` when
 * it differs from each of them in scheme, host or port: a stored secret goes only where it was
 * stored for. Whoever may change the URL gives the secret again to send it elsewhere.
 */
export function assertCredentialStaysWith(storedFor: string | string[], url: string, field: string): void {
  const stored = (Array.isArray(storedFor) ? storedFor : [storedFor]).map(credentialOrigin);
  const target = credentialOrigin(url);
  if (target !== undefined && stored.includes(target)) return;
  throw invalidField(
    field,
    `must have the scheme, host and port the stored credentials were saved for (${stored.filter(Boolean).join(', ') || 'none'}); give the credentials again to use another address`,
  );
}
