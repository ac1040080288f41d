import { hash as oneShot } from 'node:crypto';
import { Finding } from './model';
import { normalizePath } from './normalize';

/**
 * Bulwark's stable fingerprint. Line numbers never enter it, so code added above a finding does not
 * change it. The parts, joined and hashed with SHA-256:
 *
 * - dependency findings (a library is set): tool, rule and first vulnerability id (or the tool's own
 *   advisory identity, `locator`, where a format has one), library name and version, normalized file
 *   path (the manifest, lock file or package path);
 * - cloud findings (a resource, no file or library): tool, rule, resource id, and the tool's identity
 *   of the finding (`locator`: Security Hub `Id`, Wiz issue id) where it has one, else the normalized
 *   title; a dependency finding on a resource (Inspector, Wiz) adds the resource id to its parts;
 * - web findings (endpoints, no file): tool, rule, `locator` (ZAP: risk and confidence, which ZAP
 *   itself keeps apart), normalized title, the sorted distinct host names of
 *   the endpoints: the same issue on further URLs, ports or schemes of a host merges into one finding,
 *   which keeps every URL among its endpoints;
 * - code, config and secret findings: tool, rule, normalized file path, the tool's line-independent
 *   result identity where it has one (`locator`), else the normalized snippet, else the normalized
 *   title and description, and an ordinal: among the
 *   findings of one report with the same parts, the rank of this finding's start line among their
 *   distinct start lines. Identical code at two places in one file therefore stays two findings,
 *   while the same record written twice (same line) merges; shifting all lines keeps the ranks.
 */
export function computeFingerprints(findings: Finding[]): void {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const { key, byLine } = fingerprintBase(f);
    if (!byLine) {
      f.fingerprint = hash(key);
      continue;
    }
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(f);
  }
  for (const [key, g] of groups) {
    const lines = [...new Set(g.map((f) => f.startLine ?? 0))].sort((a, b) => a - b);
    for (const f of g) f.fingerprint = hash(`${key}\u0000${lines.indexOf(f.startLine ?? 0)}`);
  }
}

/**
 * The parts of the fingerprint before the ordinal. With `byLine`, findings with the same key are told
 * apart by the rank of their start line, so distinct (key, start line) pairs are distinct fingerprints.
 */
export function fingerprintBase(f: Finding): { key: string; byLine: boolean } {
  return { key: baseKey(f), byLine: !f.library && f.filePath !== undefined };
}

function baseKey(f: Finding): string {
  const rule = f.ruleId ?? '';
  if (f.library) {
    const advisory = f.locator ?? `${rule}\u0000${f.vulnerabilityIds[0] ?? ''}`;
    const parts = ['dep', f.tool, advisory, f.library.name, f.library.version ?? '', path(f)];
    // The same package on two hosts or images is two findings.
    if (f.resource) parts.push(f.resource.id);
    return parts.join('\u0000');
  }
  if (f.filePath === undefined && f.resource) {
    return ['cloud', f.tool, rule, f.resource.id, f.locator ?? text(f.title)].join('\u0000');
  }
  if (f.filePath === undefined) {
    const hosts = [...new Set(f.endpoints.map((e) => host(e.url)))].sort();
    return ['web', f.tool, rule, f.locator ?? '', text(f.title), ...hosts].join('\u0000');
  }
  const locator = f.locator ?? (f.snippet ? text(f.snippet) : `${text(f.title)}\u0000${text(f.description ?? '')}`);
  return ['code', f.tool, rule, path(f), locator].join('\u0000');
}

function host(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url
      .replace(/^[a-z]+:\/\//i, '')
      .replace(/[:/?#].*$/, '')
      .toLowerCase();
  }
}

function path(f: Finding): string {
  return f.filePath ? normalizePath(f.filePath) : '';
}

/** Whitespace-insensitive, and digits masked: messages often quote line or column numbers. */
function text(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase().replace(/\d+/g, '#');
}

/** The fingerprint of a finding from its base key and, for findings told apart by line, its line's rank. */
export function fingerprintOf(key: string, rank: number | undefined): string {
  return hash(rank === undefined ? key : `${key}\u0000${rank}`);
}

function hash(s: string): string {
  return oneShot('sha256', s, 'hex');
}
