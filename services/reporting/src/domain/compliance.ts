/**
 * Compliance categories mapped from CWEs.
 *
 * OWASP Top 10 2021: the "List of Mapped CWEs" of each category's page (owasp.org/Top10, A01 to
 * A10). CWE Top 25 Most Dangerous Software Weaknesses 2024: MITRE's list
 * (cwe.mitre.org/top25/archive/2024/2024_cwe_top25.html), in rank order. A dependency with a known
 * vulnerability is A06 (Vulnerable and Outdated Components) whatever its CWEs, as OWASP defines it.
 */
import { ComplianceCategory, ComplianceSection, ReportIssue, Severity, SeverityCounts, SEVERITIES } from './snapshot';

interface Category {
  id: string;
  name: string;
  cwes: readonly number[];
}

export const OWASP_TOP10_2021: readonly Category[] = [
  {
    id: 'A01:2021',
    name: 'Broken Access Control',
    cwes: [
      22, 23, 35, 59, 200, 201, 219, 264, 275, 276, 284, 285, 352, 359, 377, 402, 425, 441, 497, 538, 540, 548, 552,
      566, 601, 639, 651, 668, 706, 862, 863, 913, 922, 1275,
    ],
  },
  {
    id: 'A02:2021',
    name: 'Cryptographic Failures',
    cwes: [
      261, 296, 310, 319, 321, 322, 323, 324, 325, 326, 327, 328, 329, 330, 331, 335, 336, 337, 338, 340, 347, 523, 720,
      757, 759, 760, 780, 818, 916,
    ],
  },
  {
    id: 'A03:2021',
    name: 'Injection',
    cwes: [
      20, 74, 75, 77, 78, 79, 80, 83, 87, 88, 89, 90, 91, 93, 94, 95, 96, 97, 98, 99, 100, 113, 116, 138, 184, 470, 471,
      564, 610, 643, 644, 652, 917,
    ],
  },
  {
    id: 'A04:2021',
    name: 'Insecure Design',
    cwes: [
      73, 183, 209, 213, 235, 256, 257, 266, 269, 280, 311, 312, 313, 316, 419, 430, 434, 444, 451, 472, 501, 522, 525,
      539, 579, 598, 602, 642, 646, 650, 653, 656, 657, 799, 807, 840, 841, 927, 1021, 1173,
    ],
  },
  {
    id: 'A05:2021',
    name: 'Security Misconfiguration',
    cwes: [2, 11, 13, 15, 16, 260, 315, 520, 526, 537, 541, 547, 611, 614, 756, 776, 942, 1004, 1032, 1174],
  },
  { id: 'A06:2021', name: 'Vulnerable and Outdated Components', cwes: [937, 1035, 1104] },
  {
    id: 'A07:2021',
    name: 'Identification and Authentication Failures',
    cwes: [
      255, 259, 287, 288, 290, 294, 295, 297, 300, 302, 304, 306, 307, 346, 384, 521, 613, 620, 640, 798, 940, 1216,
    ],
  },
  {
    id: 'A08:2021',
    name: 'Software and Data Integrity Failures',
    cwes: [345, 353, 426, 494, 502, 565, 784, 829, 830, 915],
  },
  { id: 'A09:2021', name: 'Security Logging and Monitoring Failures', cwes: [117, 223, 532, 778] },
  { id: 'A10:2021', name: 'Server-Side Request Forgery (SSRF)', cwes: [918] },
];

const TOP25_2024: readonly [number, string][] = [
  [79, 'Cross-site Scripting'],
  [787, 'Out-of-bounds Write'],
  [89, 'SQL Injection'],
  [352, 'Cross-Site Request Forgery (CSRF)'],
  [22, 'Path Traversal'],
  [125, 'Out-of-bounds Read'],
  [78, 'OS Command Injection'],
  [416, 'Use After Free'],
  [862, 'Missing Authorization'],
  [434, 'Unrestricted Upload of File with Dangerous Type'],
  [94, 'Code Injection'],
  [20, 'Improper Input Validation'],
  [77, 'Command Injection'],
  [287, 'Improper Authentication'],
  [269, 'Improper Privilege Management'],
  [502, 'Deserialization of Untrusted Data'],
  [200, 'Exposure of Sensitive Information to an Unauthorized Actor'],
  [863, 'Incorrect Authorization'],
  [918, 'Server-Side Request Forgery (SSRF)'],
  [119, 'Improper Restriction of Operations within the Bounds of a Memory Buffer'],
  [476, 'NULL Pointer Dereference'],
  [798, 'Use of Hard-coded Credentials'],
  [190, 'Integer Overflow or Wraparound'],
  [400, 'Uncontrolled Resource Consumption'],
  [306, 'Missing Authentication for Critical Function'],
];

export const CWE_TOP25_2024: readonly Category[] = TOP25_2024.map(([cwe, name], index) => ({
  id: `#${index + 1} CWE-${cwe}`,
  name,
  cwes: [cwe],
}));

const A06 = 'A06:2021';

/** Issue counts of one set of CWEs, as the issues service groups them. */
export interface CweGroup {
  cwes: number[];
  severity: Severity;
  open: boolean;
  /** The issue is a dependency's (it names a library). */
  library: boolean;
  count: number;
}

const zero = (): SeverityCounts => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });

function tally(
  categories: readonly Category[],
  groups: CweGroup[],
  extra: (group: CweGroup) => string | null,
): ComplianceCategory[] {
  const rows = categories.map((c) => ({
    id: c.id,
    name: c.name,
    cwes: new Set<number>(),
    total: 0,
    open: 0,
    open_by_severity: zero(),
    match: new Set(c.cwes),
  }));
  for (const group of groups) {
    for (const row of rows) {
      const matched = group.cwes.filter((cwe) => row.match.has(cwe));
      // An issue counts once per category, however many of its CWEs fall in it.
      if (matched.length === 0 && extra(group) !== row.id) continue;
      matched.forEach((cwe) => row.cwes.add(cwe));
      row.total += group.count;
      if (group.open) {
        row.open += group.count;
        row.open_by_severity[group.severity] += group.count;
      }
    }
  }
  return rows.map(({ match: _match, cwes, ...row }) => ({ ...row, cwes: [...cwes].sort((a, b) => a - b) }));
}

export function buildCompliance(groups: CweGroup[]): ComplianceSection {
  const owaspCwes = new Set(OWASP_TOP10_2021.flatMap((c) => c.cwes));
  let unmapped = 0;
  let withoutCwe = 0;
  for (const group of groups) {
    if (group.library) continue;
    if (group.cwes.length === 0) withoutCwe += group.count;
    else if (!group.cwes.some((cwe) => owaspCwes.has(cwe))) unmapped += group.count;
  }
  return {
    owasp_top10_2021: tally(OWASP_TOP10_2021, groups, (g) => (g.library ? A06 : null)),
    cwe_top25_2024: tally(CWE_TOP25_2024, groups, () => null),
    unmapped,
    without_cwe: withoutCwe,
  };
}

export const isSeverity = (s: string): s is Severity => (SEVERITIES as readonly string[]).includes(s);

/**
 * What to do about an issue, from what is known of it: scanners' own advice, where they give
 * any, is in the description, so this names the fix's kind and the weakness to read up on.
 */
export function remediationOf(issue: ReportIssue): string {
  const weakness = issue.cwes.length > 0 ? ` (${issue.cwes.map((cwe) => `CWE-${cwe}`).join(', ')})` : '';
  if (issue.lib_name !== null) {
    const version = issue.lib_version === null ? '' : ` from ${issue.lib_version}`;
    return `Upgrade ${issue.lib_name}${version} to a release that fixes ${issue.cve ?? 'this vulnerability'}${weakness}, or remove the dependency.`;
  }
  const owasp = OWASP_TOP10_2021.find((c) => issue.cwes.some((cwe) => c.cwes.includes(cwe)));
  const where =
    issue.file_path === null ? '' : ` at ${issue.file_path}${issue.start_line === null ? '' : `:${issue.start_line}`}`;
  return `Fix the code${where}${weakness}${owasp ? `; see OWASP ${owasp.id} ${owasp.name}` : ''}, then rescan to confirm.`;
}
