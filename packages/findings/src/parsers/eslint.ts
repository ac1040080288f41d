import { Finding } from '../model';
import { line, obj, str } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const f of each(doc)) {
    const file = obj(f);
    for (const m of each(file.messages)) {
      const msg = obj(m);
      // ESLint severities: 2 error, 1 warning; fatal parse errors carry no rule.
      const level = msg.severity === 2 ? 'high' : 'medium';
      yield ctx.finding({
        tool: 'eslint',
        toolCategory: 'sast',
        ruleId: str(msg.ruleId) ?? (msg.fatal ? 'fatal' : undefined),
        title: str(msg.message) ?? str(msg.ruleId) ?? 'ESLint message',
        description: str(msg.message),
        severity: level,
        toolSeverity: msg.severity === 2 ? 'error' : 'warning',
        filePath: str(file.filePath),
        startLine: line(msg.line),
        endLine: line(msg.endLine) ?? line(msg.line),
        snippet: str(msg.source),
      });
    }
  }
}

export const eslint: JsonFormat = {
  id: 'eslint',
  title: 'ESLint JSON formatter (eslint -f json)',
  testedWith: 'ESLint json formatter output (the format carries no version)',
  kind: 'json',
  detect: (doc) => isArrayLikeOf(doc, (f) => hasKeys(f, 'filePath', 'messages')),
  parse,
};
