import { CvssVector, fromVector } from 'ae-cvss-calculator';
import { LazyArray } from './io/json';
import { Cvss, Finding, FindingInit, Severity } from './model';

/** Shared helpers that turn a tool's values into the model's. */

const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'critical',
  crit: 'critical',
  blocker: 'critical',
  very_high: 'critical',
  high: 'high',
  error: 'high',
  major: 'high',
  important: 'high',
  medium: 'medium',
  moderate: 'medium',
  warning: 'medium',
  warn: 'medium',
  low: 'low',
  minor: 'low',
  info: 'info',
  informational: 'info',
  information: 'info',
  note: 'info',
  none: 'info',
  unknown: 'info',
  negligible: 'info',
  trivial: 'info',
  unspecified: 'info',
};

/** Maps a severity word; undefined when the word is not one. */
export function severityOf(word: unknown): Severity | undefined {
  if (typeof word === 'number') return severityOfScore(word);
  if (typeof word !== 'string') return undefined;
  const w = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (w === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(w)) return severityOfScore(Number(w));
  return SEVERITY_WORDS[w];
}

const LEVELS: readonly Severity[] = ['info', 'low', 'medium', 'high', 'critical'];

/** A severity level 0–4 (0 informational … 4 critical), as Nessus, WebInspect and AppScan number them. */
export function severityOfLevel(level: unknown): Severity | undefined {
  const t = typeof level === 'number' ? String(level) : typeof level === 'string' ? level.trim() : '';
  return /^[0-4]$/.test(t) ? LEVELS[Number(t)] : undefined;
}

/** CVSS qualitative rating (FIRST v3/v4 scale). */
export function severityOfScore(score: number): Severity | undefined {
  if (!Number.isFinite(score) || score < 0 || score > 10) return undefined;
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

export function int(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

export function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** An EPSS figure when its score is a number; the percentile comes along as it is. */
export function epssOf(score: unknown, percentile: unknown): { score: number; percentile?: number } | undefined {
  const n = num(score);
  return n === undefined ? undefined : { score: n, percentile: num(percentile) };
}

/** A line number: positive integers only; 0 and negatives mean "no line" in most tools. */
export function line(v: unknown): number | undefined {
  const n = int(v);
  return n !== undefined && n > 0 ? n : undefined;
}

export function obj(v: unknown): Record<string, unknown> {
  return isObj(v) ? v : {};
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof LazyArray);
}

/** A small array; one left on disk (see io/json.ts) is read in. Use `each` for arrays that may be large. */
export function arr(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return v instanceof LazyArray ? [...v] : [];
}

/** CWE ids from numbers, "CWE-79", "CWE-79: ...", "external/cwe/cwe-079", or lists of those. */
export function cwes(...values: unknown[]): number[] {
  const out: number[] = [];
  const add = (n: number): void => {
    if (Number.isInteger(n) && n > 0 && !out.includes(n)) out.push(n);
  };
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'number') add(v);
    else if (typeof v === 'string') {
      const t = v.trim();
      if (/^\d+$/.test(t)) add(Number(t));
      else for (const m of t.matchAll(/\bcwe[-_:\s/]*0*(\d+)/gi)) add(Number(m[1]));
    }
  };
  values.forEach(visit);
  return out;
}

const VULN_ID =
  /\b(CVE-\d{4}-\d{4,}|GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}|RUSTSEC-\d{4}-\d{4}|PYSEC-\d{4}-\d+|GO-\d{4}-\d{4,}|OSV-\d{4}-\d+)\b/gi;

/** CVE-2021-1234 and GHSA-xxxx-xxxx-xxxx, as their databases write them. */
function canonicalId(id: string): string {
  return /^ghsa-/i.test(id) ? `GHSA-${id.slice(5).toLowerCase()}` : id.toUpperCase();
}

/** Vulnerability ids from explicit values (kept as written) and ids found in free text; CVEs first. */
export function vulnIds(explicit: unknown[], ...texts: unknown[]): string[] {
  const out: string[] = [];
  const add = (id: string): void => {
    const t = id.trim();
    if (t && !out.some((x) => x.toUpperCase() === t.toUpperCase())) out.push(t);
  };
  for (const v of explicit.flat()) {
    const s = str(v);
    if (s) add(s);
  }
  for (const t of texts.flat()) {
    if (typeof t === 'string') for (const m of t.matchAll(VULN_ID)) add(canonicalId(m[1]));
  }
  const isCve = (s: string): boolean => /^CVE-/i.test(s);
  return [...out.filter(isCve), ...out.filter((s) => !isCve(s))];
}

const V2_BASE = ['AV', 'AC', 'Au', 'C', 'I', 'A'];
const V3_BASE = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'];
const V4_BASE = ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'];

export interface ParsedCvss extends Cvss {
  version: '2.0' | '3.0' | '3.1' | '4.0';
}

/**
 * Reports repeat the same few vectors across thousands of findings, and scoring one costs far more
 * than reading a finding: results are kept per vector string, up to a bound.
 */
const cvssCache = new Map<string, ParsedCvss | undefined>();
const CVSS_CACHE_SIZE = 10_000;

/** Parses and scores a vector of any CVSS version with ae-cvss-calculator; undefined if invalid. */
export function parseCvss(vector: unknown): ParsedCvss | undefined {
  const v = str(vector)
    ?.trim()
    .replace(/^\(|\)$/g, '');
  if (!v) return undefined;
  if (cvssCache.has(v)) return cvssCache.get(v);
  const parsed = scoreCvss(v);
  if (cvssCache.size >= CVSS_CACHE_SIZE) cvssCache.clear();
  cvssCache.set(v, parsed);
  return parsed;
}

/** A vector of any version as scoreCvss reads it: every score has `overall`, versions with several scores also `base`. */
type ParsedVector = CvssVector<{ vector: string; overall: number; normalized: boolean; base?: number }>;

function scoreCvss(v: string): ParsedCvss | undefined {
  let parsed: ParsedVector | undefined;
  try {
    // Declared as returning `any`: it returns the vector of the version the string names.
    parsed = fromVector(v) as ParsedVector | undefined;
  } catch {
    return undefined;
  }
  if (!parsed) return undefined;
  const name = parsed.getVectorName();
  const version =
    name === 'CVSS:2.0'
      ? '2.0'
      : name === 'CVSS:3.0'
        ? '3.0'
        : name === 'CVSS:3.1'
          ? '3.1'
          : name === 'CVSS:4.0'
            ? '4.0'
            : undefined;
  if (!version) return undefined;
  const normalized = parsed.toString();
  const present = new Set(
    normalized
      .split('/')
      .map((p) => p.split(':'))
      .filter(([, val]) => val !== undefined && val !== 'X')
      .map(([k]) => k),
  );
  const required = version === '2.0' ? V2_BASE : version === '4.0' ? V4_BASE : V3_BASE;
  if (!required.every((k) => present.has(k))) return undefined;
  const scores = parsed.calculateScores();
  const score = scores.base ?? scores.overall;
  return {
    version,
    vector: normalized,
    score: typeof score === 'number' && Number.isFinite(score) ? score : undefined,
  };
}

/** Puts a vector into the field for its version; keeps an existing value. */
export function addCvss(f: Partial<Finding>, vector: unknown, fallbackScore?: unknown): void {
  const c = parseCvss(vector);
  if (c) {
    const entry: Cvss = { vector: c.vector, score: c.score };
    if (c.version === '2.0') f.cvssV2 ??= entry;
    else if (c.version === '4.0') f.cvssV4 ??= entry;
    else f.cvssV3 ??= entry;
  } else {
    const s = num(fallbackScore);
    if (s !== undefined && s >= 0 && s <= 10) f.cvssScore ??= s;
  }
}

/** The severity of the finding's CVSS score: of the newest version's vector, else a bare score. */
export function cvssSeverity(f: Partial<Finding>): Severity | undefined {
  return severityOf(f.cvssV4?.score ?? f.cvssV3?.score ?? f.cvssV2?.score ?? f.cvssScore);
}

/** Path as the fingerprint sees it: forward slashes, no scheme, no leading "./". */
export function normalizePath(p: string): string {
  let s = p.trim().replace(/\\/g, '/');
  s = s.replace(/^file:\/\/(localhost)?/i, '');
  try {
    s = decodeURI(s);
  } catch {
    // Not percent-encoded text; keep it as written.
  }
  return s.replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}

/**
 * Completes the parser's object into a Finding with empty lists and defaults for what it did not set.
 * The object is completed in place: copying every finding again costs measurably at 100,000 findings.
 */
export function newFinding(format: string, init: FindingInit): Finding {
  const f = init as Finding;
  f.format = format;
  f.tags ??= [];
  f.cwes ??= [];
  f.vulnerabilityIds ??= [];
  f.references ??= [];
  f.endpoints ??= [];
  f.toolFingerprints ??= {};
  f.fingerprint ??= '';
  f.occurrences ??= 1;
  return f;
}

export function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** Cuts long free text for titles; descriptions keep their full text. */
export function shorten(s: string, max = 200): string {
  if (s.length <= max && !/\s\s|[\t\n\r]|^\s|\s$/.test(s)) return s;
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
