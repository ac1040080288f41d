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

/** Findings listed per side; the rest are counted. */
export const SHOWN = 200;

export interface ScanDiff {
  /** In the later scan only: new (the first SHOWN, and how many in all). */
  added: Page<DiffFinding>;
  /** In the earlier scan only: fixed. */
  removed: Page<DiffFinding>;
}

/** The findings of `scan` whose fingerprint `other` lacks, matched by the API as its comparison matches them. */
const onlyIn = (scan: string, other: string) =>
  api<Page<DiffFinding>>('GET', `/scan-result/${scan}/findings`, undefined, {
    'filter[not_in]': other,
    limit: SHOWN,
  });

/** The findings only one of two scans has. */
export async function diffScans(earlier: string, later: string): Promise<ScanDiff> {
  const [added, removed] = await Promise.all([onlyIn(later, earlier), onlyIn(earlier, later)]);
  return { added, removed };
}

/** Where a finding is: its file and line, else its library, else its rule. */
export const findingPlace = (f: DiffFinding) =>
  f.filePath
    ? `${f.filePath}${f.startLine ? `:${f.startLine}` : ''}`
    : f.library
      ? `${f.library.name}${f.library.version ? ` ${f.library.version}` : ''}`
      : (f.ruleId ?? '—');
