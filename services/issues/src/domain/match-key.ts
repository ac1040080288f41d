import * as crypto from 'node:crypto';
import type { Finding } from '@bulwark/findings';

export type DedupField =
  'tool_fingerprint' | 'fingerprint' | 'rule_id' | 'file_path' | 'title' | 'cve' | 'cwe' | 'lib_name' | 'lib_version';
export type DedupScope = 'project' | 'layer';

export interface DedupRule {
  toolName: string | null;
  fields: DedupField[];
  scope: DedupScope;
}

/** Without a rule: the tool's own fingerprint when it wrote one, else Bulwark's, per project. */
export const DEFAULT_RULE: DedupRule = { toolName: null, fields: ['tool_fingerprint'], scope: 'project' };

/**
 * The rule of a tool, by any of its names (the catalog's tool name, the scanner's name in the report;
 * compared without case), else the default rule, else the built-in one.
 */
export function ruleFor(rules: DedupRule[], toolNames: string[]): DedupRule {
  const names = toolNames.filter(Boolean).map((t) => t.toLowerCase());
  return (
    rules.find((r) => r.toolName !== null && names.includes(r.toolName.toLowerCase())) ??
    rules.find((r) => r.toolName === null) ??
    DEFAULT_RULE
  );
}

/** The tool's fingerprints in a stable order, so the same report always gives the same key. */
function toolFingerprint(f: Finding): string | undefined {
  const entries = Object.entries(f.toolFingerprints ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join('&') : undefined;
}

function fieldValue(f: Finding, field: DedupField): string {
  switch (field) {
    case 'tool_fingerprint': {
      const tfp = toolFingerprint(f);
      return tfp ? `tfp:${tfp}` : `fp:${f.fingerprint}`;
    }
    case 'fingerprint':
      return f.fingerprint;
    case 'rule_id':
      return f.ruleId ?? '';
    case 'file_path':
      return (f.filePath ?? '').replace(/\\/g, '/').replace(/^\.\//, '');
    case 'title':
      return f.title.trim().toLowerCase();
    case 'cve':
      return f.vulnerabilityIds.find((v) => v.startsWith('CVE-')) ?? '';
    case 'cwe':
      return [...f.cwes].sort((a, b) => a - b).join(',');
    case 'lib_name':
      return f.library?.name ?? '';
    case 'lib_version':
      return f.library?.version ?? '';
  }
}

/**
 * The identity of a finding among a project's issues: the tool and the rule's fields, hashed. Line
 * numbers never enter it (neither does Bulwark's fingerprint), so a line shift keeps the issue.
 */
export function matchKey(f: Finding, rule: DedupRule): string {
  let text = f.tool.toLowerCase();
  for (const field of rule.fields) text += `\u0000${field}=${fieldValue(f, field)}`;
  return sha256Hex(text);
}

/** sha256 of a UTF-8 text in hex; the one-shot `crypto.hash` (Node 20.12+) skips a Hash object per key. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex = oneShot
  ? (text: string) => oneShot('sha256', text, 'hex')
  : (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** The scope column: issues of a layer-scoped rule are distinct per layer. */
export function scopeOf(rule: DedupRule, layerId: string): string {
  return rule.scope === 'layer' ? layerId : '';
}
