import fs from 'node:fs';
import path from 'node:path';
import { Finding, SEVERITIES, Severity } from '@bulwark/findings';

/**
 * Paths inside the scan's workspace become repository-relative, as people read them, whatever form
 * the scanner wrote: absolute, `file://` URIs (SARIF), `./x`, or rooted at the scan folder (`/x`).
 */
export function relativeToWorkspace(findings: Finding[], workspace: string): void {
  const root = workspace.endsWith(path.sep) ? workspace : workspace + path.sep;
  for (const f of findings) {
    let p = f.filePath;
    if (!p) continue;
    if (p.startsWith('file://')) p = decodeURIComponent(p.slice('file://'.length));
    if (p.startsWith(root)) p = p.slice(root.length);
    else if (p.startsWith('./')) p = p.slice(2);
    else if (p.startsWith('/') && fs.existsSync(path.join(workspace, p))) p = p.slice(1);
    f.filePath = p;
  }
}

export function severityCounts(findings: Finding[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

export function contentTypeOf(format: string): string {
  return /xml|zap|checkmarx-xml|dependency-check/.test(format)
    ? 'application/xml'
    : /csv/.test(format)
      ? 'text/csv'
      : 'application/json';
}
