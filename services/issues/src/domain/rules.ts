import { projectSet, type ProjectSet } from '@bulwark/platform';

/** The attributes of an issue a security rule looks at. */
export interface RuleSubject {
  projectCode: string;
  /** The tool's name in the catalog, and the scanner's name in the report: either matches. */
  toolName: string;
  scanner: string;
  category: string;
  cves: string[];
  cwes: number[];
}

export interface RuleParams {
  instrument_type?: string;
  tool_type_name?: string;
  category?: string;
  cve?: string;
  cwe?: string | number;
  active_for_all?: boolean;
  project_codes?: string[];
}

/** A rule covers every project unless `active_for_all` is false; then only its `project_codes`. */
export function ruleProjects(p: RuleParams): ProjectSet {
  return projectSet({ every: p.active_for_all !== false, codes: p.project_codes ?? [] });
}

/** The values a list of rules takes, per filter. */
export interface RuleFilterValues {
  suppressingStatus: number[];
  expiryStatus: number[];
  instrumentType: string[];
  toolTypeName: string[];
  category: string[];
  cve: string[];
  cwe: string[];
  author: string[];
}

export function ruleFilterValues(
  rules: { suppressingStatus: number; expiryStatus: number; ruleParams: RuleParams; author: string }[],
): RuleFilterValues {
  const uniq = <T>(v: (T | undefined)[]) => [...new Set(v.filter((x): x is T => x !== undefined && x !== ''))].sort();
  return {
    suppressingStatus: uniq(rules.map((r) => r.suppressingStatus)),
    expiryStatus: uniq(rules.map((r) => r.expiryStatus)),
    instrumentType: uniq(rules.map((r) => r.ruleParams.instrument_type)),
    toolTypeName: uniq(rules.map((r) => r.ruleParams.tool_type_name)),
    category: uniq(rules.map((r) => r.ruleParams.category)),
    cve: uniq(rules.map((r) => r.ruleParams.cve)),
    cwe: uniq(rules.map((r) => (r.ruleParams.cwe === undefined ? undefined : String(r.ruleParams.cwe)))),
    author: uniq(rules.map((r) => r.author)),
  };
}

export function cweNumber(cwe: string | number | undefined): number | undefined {
  if (cwe === undefined || cwe === '') return undefined;
  const n = Number(String(cwe).replace(/^cwe-/i, ''));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Whether a rule covers an issue: every parameter given must match (text without case); a rule
 * not active_for_all covers only its project_codes. A rule with no parameter covers nothing.
 */
export function ruleMatches(p: RuleParams, s: RuleSubject): boolean {
  const eq = (a: string | undefined, b: string) => a === undefined || a === '' || a.toLowerCase() === b.toLowerCase();
  const any = [p.instrument_type, p.tool_type_name, p.category, p.cve, cweNumber(p.cwe)].some(
    (v) => v !== undefined && v !== '',
  );
  if (!any) return false;
  if (p.active_for_all === false && !(p.project_codes ?? []).includes(s.projectCode)) return false;
  if (
    !eq(p.instrument_type, s.category) ||
    !(eq(p.tool_type_name, s.toolName) || eq(p.tool_type_name, s.scanner)) ||
    !eq(p.category, s.category)
  )
    return false;
  const cve = p.cve?.toLowerCase();
  if (cve && !s.cves.some((c) => c.toLowerCase() === cve)) return false;
  const cwe = cweNumber(p.cwe);
  if (cwe !== undefined && !s.cwes.includes(cwe)) return false;
  return true;
}
