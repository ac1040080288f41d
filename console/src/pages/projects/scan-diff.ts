import { api } from '../../api';
import type { Page, Severity } from '../../types';

/** The fields of a normalized finding (GET /scan-result/{id}/findings) the comparison shows. */
export interface DiffFinding {
  fingerprint: string;
  title: string;
  severity: Severity;
  ruleId?: string;
  filePath?: string;
  startLine?: number;
  library?: { name: string; version?: string };
}

/** Pages read per scan at most: a comparison of larger scans lists the first ones and says there are more. */
const MAX_PAGES = 5;
const PAGE = 1000;

async function findingsOf(scanId: string): Promise<{ items: DiffFinding[]; complete: boolean }> {
  const items: DiffFinding[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await api<Page<DiffFinding>>('GET', `/scan-result/${scanId}/findings`, undefined, { page, limit: PAGE });
    items.push(...r.items);
    if (items.length >= r.total) return { items, complete: true };
  }
  return { items, complete: false };
}

export interface ScanDiff {
  /** In the later scan only: new. */
  added: DiffFinding[];
  /** In the earlier scan only: fixed. */
  removed: DiffFinding[];
  /** Both scans were read in full, so the lists are whole. */
  complete: boolean;
}

/** The findings only one of two scans has, matched by fingerprint as the API's comparison matches them. */
export async function diffScans(earlier: string, later: string): Promise<ScanDiff> {
  const [a, b] = await Promise.all([findingsOf(earlier), findingsOf(later)]);
  const inA = new Set(a.items.map((f) => f.fingerprint));
  const inB = new Set(b.items.map((f) => f.fingerprint));
  return {
    added: b.items.filter((f) => !inA.has(f.fingerprint)),
    removed: a.items.filter((f) => !inB.has(f.fingerprint)),
    complete: a.complete && b.complete,
  };
}

/** Where a finding is: its file and line, else its library, else its rule. */
export const findingPlace = (f: DiffFinding) =>
  f.filePath
    ? `${f.filePath}${f.startLine ? `:${f.startLine}` : ''}`
    : f.library
      ? `${f.library.name}${f.library.version ? ` ${f.library.version}` : ''}`
      : (f.ruleId ?? '—');
