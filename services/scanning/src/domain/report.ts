import path from 'node:path';
import { Finding, SEVERITIES, Severity } from '@bulwark/findings';

/** Paths inside the scan's workspace become repository-relative, as people read them. */
export function relativeToWorkspace(findings: Finding[], workspace: string): void {
  const root = workspace.endsWith(path.sep) ? workspace : workspace + path.sep;
  for (const f of findings) {
    if (f.filePath?.startsWith(root)) f.filePath = f.filePath.slice(root.length);
    else if (f.filePath?.startsWith('./')) f.filePath = f.filePath.slice(2);
  }
}

export function severityCounts(findings: Finding[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of findings) counts[f.severity] += 1;
  return counts;
}

export function contentTypeOf(format: string): string {
  return /xml|zap|checkmarx-xml|dependency-check/.test(format) ? 'application/xml' : /csv/.test(format) ? 'text/csv' : 'application/json';
}
