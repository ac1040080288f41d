import { Finding, Severity } from '../model';
import { child, children, path, XmlElement } from '../io/xml';
import { cwes, line } from '../normalize';
import { ParseContext, XmlFormat } from './common';

/** Cppcheck's severities; `information` is about the analysis itself (missing includes, checkers run). */
const SEVERITY: Record<string, Severity> = {
  error: 'high',
  warning: 'medium',
  performance: 'low',
  portability: 'low',
  style: 'low',
};

/**
 * Cppcheck XML (`--xml`, format version 2; version 1 without `<errors>` is read as well). Cppcheck's
 * SARIF output (`--output-format=sarif`) is read by the SARIF format. One finding per `<error>`,
 * located at its first `<location>`, which is where Cppcheck reports the error (the further ones are
 * the path to it). `information` messages describe the analysis (a missing include, the checkers
 * report), not the code, and are left out.
 */
function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const errors = child(root, 'errors') ? path(root, 'errors', 'error') : children(root, 'error');
  for (const e of errors) {
    const sev = e.attrs.severity;
    if (!SEVERITY[sev ?? '']) continue;
    const loc = child(e, 'location');
    const id = e.attrs.id ?? 'cppcheck';
    const message = e.attrs.msg ?? id;
    const symbols = children(e, 'symbol').map((s) => s.text.trim());
    yield ctx.finding({
      tool: 'cppcheck',
      toolCategory: 'sast',
      ruleId: id,
      title: message,
      description: [e.attrs.verbose ?? message, symbols.length ? `Symbols: ${symbols.join(', ')}` : undefined]
        .filter(Boolean)
        .join('\n'),
      severity: SEVERITY[sev ?? ''] ?? 'medium',
      toolSeverity: sev,
      confidence: e.attrs.inconclusive === 'true' ? 'inconclusive' : undefined,
      cwes: cwes(e.attrs.cwe),
      filePath: loc?.attrs.file ?? e.attrs.file,
      startLine: line(loc?.attrs.line ?? e.attrs.line),
      locator: e.attrs.hash,
    });
  }
}

export const cppcheck: XmlFormat = {
  id: 'cppcheck',
  title: 'Cppcheck XML (--xml)',
  testedWith: 'Cppcheck 2.x, XML format 1 and 2 (its SARIF, from 2.17, is read as sarif)',
  kind: 'xml',
  detect: (root) =>
    root.name === 'results' &&
    (!!child(root, 'cppcheck') ||
      !!child(root, 'errors') ||
      (root.attrs.version === undefined && !!child(root, 'error'))),
  parse,
};
