import { createHash } from 'node:crypto';
import { Finding } from '../model';
import { arr, line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * truffleHog3 (feeltheajf/truffleHog3) JSON. 3.x writes one record per secret found (`rule`, `path`,
 * `line`, `secret`, `context`, and the commit for history scans); 2.x wrote truffleHog 2's records
 * (`reason`, `stringsFound`) without its `diff` and `printDiff`, which tells them from truffleHog's.
 *
 * 3.x: the same secret at the same file and line in several commits is one finding, identified by a
 * digest of the secret; the secret itself is never in the title or description (its context lines
 * are shown with it masked). 2.x records have no line and their strings are slices of a diff: as for
 * truffleHog 2, file and reason identify a finding.
 */
function mask(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('*'.repeat(Math.min(secret.length, 8))) : text;
}

function* current(r: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const rule = obj(r.rule);
  const secret = str(r.secret);
  const path = str(r.path);
  const sev = str(rule.severity);
  const context = Object.entries(obj(r.context)).map(([n, text]) => `    ${n}: ${mask(String(text), secret)}`);
  yield ctx.finding({
    tool: 'trufflehog3',
    toolCategory: 'secrets',
    ruleId: str(rule.id) ?? 'secret',
    title: `${str(rule.message) ?? 'Secret'} found in ${path ?? 'source'}`,
    description:
      [
        context.length ? `**Context:**\n${context.join('\n')}` : undefined,
        str(r.branch) && `**Branch:** ${String(r.branch)}`,
        str(r.message) && `**Commit message:** ${String(r.message)}`,
        str(r.commit) && `**Commit hash:** ${String(r.commit)}`,
        str(r.date) && `**Commit date:** ${String(r.date)}`,
      ]
        .filter(Boolean)
        .join('\n') || undefined,
    severity: severityOf(sev) ?? 'high',
    toolSeverity: sev,
    cwes: [798],
    filePath: path,
    startLine: line(r.line),
    locator: secret ? createHash('sha256').update(secret).digest('hex') : undefined,
  });
}

function* legacy(r: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const reason = str(r.reason) ?? 'secret';
  yield ctx.finding({
    tool: 'trufflehog3',
    toolCategory: 'secrets',
    ruleId: reason,
    title: `${reason} found in ${str(r.path) ?? 'repository'}`,
    description: [
      `Commit ${str(r.commitHash) ?? ''} on ${str(r.branch) ?? ''}`,
      `${arr(r.stringsFound).length} string(s) found`,
    ].join('\n'),
    severity: 'high',
    cwes: [798],
    filePath: str(r.path),
    locator: 'v2:file',
  });
}

const isCurrent = (r: unknown): boolean => hasKeys(r, 'rule', 'path', 'secret') && hasKeys(obj(r).rule, 'id');
const isLegacy = (r: unknown): boolean =>
  hasKeys(r, 'reason', 'stringsFound', 'path') && !('diff' in obj(r)) && !('printDiff' in obj(r));

export const trufflehog3: JsonFormat = {
  id: 'trufflehog3',
  title: 'truffleHog3 JSON',
  testedWith: 'truffleHog3 2.0 and 3.0',
  kind: 'json',
  acceptsEmpty: true,
  isEmptyReport: (doc) => Array.isArray(doc) && doc.length === 0,
  detect: (doc) => isArrayLikeOf(doc, (r) => isCurrent(r) || isLegacy(r)),
  parse: function* (doc, ctx) {
    for (const r of each(doc)) yield* isCurrent(r) ? current(obj(r), ctx) : legacy(obj(r), ctx);
  },
};
