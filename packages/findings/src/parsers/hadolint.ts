import { Finding, Severity } from '../model';
import { line, obj, str } from '../normalize';
import { each, isArrayLikeOf, hasKeys, JsonFormat, ParseContext } from './common';

/** Hadolint's levels: `error`, `warning`, `info`, `style` (and `ignore`, never written). */
const LEVELS: Record<string, Severity> = { error: 'high', warning: 'medium', info: 'low', style: 'info' };

/**
 * `hadolint -f json` (1.x and 2.x): an array of rule violations, one finding each. DL rules are
 * Hadolint's own, SC rules ShellCheck's on RUN instructions; the same rule on two lines of one
 * Dockerfile is two findings.
 */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(doc)) {
    const x = obj(r);
    const code = str(x.code) ?? 'hadolint';
    const level = str(x.level) ?? 'warning';
    const message = str(x.message) ?? code;
    yield ctx.finding({
      tool: 'hadolint',
      toolCategory: 'iac',
      ruleId: code,
      title: `${code}: ${message}`,
      description: message,
      severity: LEVELS[level.toLowerCase()] ?? 'info',
      toolSeverity: level,
      tags: ['dockerfile'],
      references: [
        /^DL\d+$/.test(code)
          ? `https://github.com/hadolint/hadolint/wiki/${code}`
          : /^SC\d+$/.test(code)
            ? `https://www.shellcheck.net/wiki/${code}`
            : undefined,
      ].filter((u): u is string => !!u),
      filePath: str(x.file),
      startLine: line(x.line),
    });
  }
}

const isViolation = (v: unknown): boolean =>
  hasKeys(v, 'code', 'level', 'file', 'line', 'message') && /^(DL|SC)\d+$/.test(String(obj(v).code));

export const hadolint: JsonFormat = {
  id: 'hadolint',
  title: 'Hadolint JSON (hadolint -f json)',
  testedWith: 'Hadolint 1.x and 2.x',
  kind: 'json',
  detect: (doc) => isArrayLikeOf(doc, isViolation),
  // A Dockerfile without violations gives `[]`.
  isEmptyReport: (doc) => isArrayLikeOf(doc, () => false, true),
  parse,
};
