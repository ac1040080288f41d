import { randomUUID } from 'node:crypto';
import { STATUS } from '../src/domain/statuses';
import type { NewIssue } from '../src/store/issues/issue-store';

export const at = '2026-01-01T00:00:00.000Z';

/** Issue `n` of `project` as ingestion would write it (match key, title, line and fingerprint from `n`; odd ones high, even ones low). */
export function issue(project: string, n: number, over: Partial<NewIssue> = {}): NewIssue {
  return {
    id: randomUUID(),
    projectCode: project,
    scopeId: '',
    matchKey: `k${n}`,
    layerId: 'L1',
    checkId: 'C1',
    scanId: 'S1',
    firstScanId: 'S1',
    toolId: 'T1',
    toolName: 'Semgrep',
    scanner: 'semgrep',
    category: 'sast',
    title: `Issue ${n}`,
    description: null,
    severity: n % 2 ? 'high' : 'low',
    severityRank: n % 2 ? 4 : 2,
    ruleId: 'r',
    statusId: STATUS.new,
    cve: n === 1 ? 'CVE-2024-1' : null,
    vulnerabilityIds: n === 1 ? ['CVE-2024-1'] : [],
    cwes: [n],
    libName: null,
    libVersion: null,
    filePath: 'a.py',
    startLine: n,
    cvssV2: null,
    cvssV3: n === 1 ? 9.8 : null,
    cvssV4: null,
    cvssUnknown: null,
    cvssMax: n === 1 ? 9.8 : null,
    epss: null,
    knownExploited: false,
    fingerprint: `fp${n}`,
    occurrences: 1,
    findings: 1,
    suppression: null,
    securityRuleId: null,
    firstDetectedAt: at,
    lastDetectedAt: at,
    updatedAt: at,
    ...over,
  };
}
