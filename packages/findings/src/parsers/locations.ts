/** Endpoint URLs for findings located at a host and port (network scanners) or a site and path (DAST). */

/** `tcp://host:port` for a network service, `host` alone when the report names no port. */
export function serviceUrl(host: string, port?: string | number, protocol?: string): string {
  const p = port === undefined ? '' : String(port).trim();
  const scheme = (protocol ?? 'tcp').trim().toLowerCase() || 'tcp';
  return p && p !== '0' && p !== 'general' ? `${scheme}://${host}:${p}` : `${scheme}://${host}`;
}

/** Joins a site (with or without scheme) and a path; a path that is already a URL wins. */
export function siteUrl(site: string | undefined, path?: string): string | undefined {
  if (path && /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  if (!site) return path || undefined;
  const base = /^[a-z][a-z0-9+.-]*:\/\//i.test(site) ? site : `http://${site}`;
  if (!path) return base;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** `scheme://host:port`, the port left out where it is the scheme's default (or not stated). */
export function originUrl(scheme: string, host: string, port?: string): string {
  return `${scheme}://${host}${port && port !== DEFAULT_PORTS[scheme] ? `:${port}` : ''}`;
}
