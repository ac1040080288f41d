import { createHash } from 'node:crypto';
import { fingerprintBase } from './fingerprint';
import { Finding } from './model';
import { uniq } from './normalize';

/**
 * Merges findings of one report that share a fingerprint: true duplicates, such as the same result
 * written twice or a secret seen in several commits at the same place. The first finding is kept and
 * takes over the others' endpoints, ids and occurrence counts. The issues service uses this same
 * function on every import.
 */
export function mergeDuplicates(findings: Iterable<Finding>): Finding[] {
  const byFingerprint = new Map<string, Finding>();
  for (const f of findings) {
    const kept = byFingerprint.get(f.fingerprint);
    if (!kept) byFingerprint.set(f.fingerprint, f);
    else mergeInto(kept, f);
  }
  return [...byFingerprint.values()];
}

/** Merges a later duplicate into the finding kept for its fingerprint (see mergeDuplicates). */
export function mergeInto(kept: Finding, f: Finding): void {
  kept.occurrences += f.occurrences;
  if (f.endpoints.length) {
    const seen = new Set(kept.endpoints.map((e) => `${e.method ?? ''} ${e.url} ${e.parameter ?? ''}`));
    for (const e of f.endpoints)
      if (!seen.has(`${e.method ?? ''} ${e.url} ${e.parameter ?? ''}`)) kept.endpoints.push(e);
  }
  kept.cwes = uniq([...kept.cwes, ...f.cwes]);
  kept.vulnerabilityIds = uniq([...kept.vulnerabilityIds, ...f.vulnerabilityIds]);
  kept.references = uniq([...kept.references, ...f.references]);
}

/**
 * How many findings `mergeDuplicates` would leave, without keeping the findings: only a digest per
 * distinct fingerprint is held. Distinct fingerprints are distinct base keys, and for findings told
 * apart by line, distinct (base key, start line) pairs; see fingerprint.ts.
 */
export function countDistinct(findings: Iterable<Finding>): number {
  const seen = new Set<string>();
  for (const f of findings) {
    const { key, byLine } = fingerprintBase(f);
    const digest = createHash('sha1').update(key).digest('base64');
    seen.add(byLine ? `${digest}:${f.startLine ?? 0}` : digest);
  }
  return seen.size;
}
