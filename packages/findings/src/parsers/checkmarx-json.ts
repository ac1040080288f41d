import { Finding } from '../model';
import { arr, cwes, line, obj, severityOf, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/** Checkmarx SAST / AST JSON report: scanResults.sast.languages[].queries[].vulnerabilities[]. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const sast = obj(obj(obj(doc).scanResults).sast);
  for (const lang of each(sast.languages)) {
    for (const q of each(obj(lang).queries)) {
      const query = obj(q);
      const name = str(query.queryName) ?? 'Checkmarx query';
      for (const x of each(query.vulnerabilities)) {
        const v = obj(x);
        const nodes = arr(v.nodes).map(obj);
        const sink = nodes[nodes.length - 1] ?? {};
        const sev = str(v.severity) ?? 'INFO';
        const similarity = str(v.similarityId);
        yield ctx.finding({
          tool: 'checkmarx',
          toolCategory: 'sast',
          ruleId: str(query.queryId) ?? name,
          title: name.replace(/_/g, ' '),
          description:
            str(query.description) ??
            (nodes.length
              ? `Source: ${str(nodes[0].fileName)}:${str(nodes[0].line)} ${str(nodes[0].name) ?? ''}\nSink: ${str(sink.fileName)}:${str(sink.line)} ${str(sink.name) ?? ''}`
              : undefined),
          severity: severityOf(sev) ?? 'info',
          toolSeverity: sev,
          cwes: cwes(v.cweId),
          tags: [str(v.groupName), str(obj(lang).languageName)].filter((t): t is string => !!t),
          filePath: str(sink.fileName),
          startLine: line(sink.line),
          locator: similarity ? `similarity:${similarity}` : undefined,
          toolFingerprints: {
            ...(str(v.id) ? { id: String(v.id) } : {}),
            ...(similarity ? { similarityId: similarity } : {}),
          },
          suppression: /not exploitable/i.test(str(v.state) ?? '')
            ? { state: String(v.state), source: 'tool' }
            : undefined,
          detectedAt: str(v.foundDate),
        });
      }
    }
  }
}

export const checkmarxJson: JsonFormat = {
  id: 'checkmarx-json',
  title: 'Checkmarx SAST JSON report (scanResults.sast)',
  testedWith: 'Checkmarx SAST JSON reports, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'reportHeader', 'scanResults') && hasKeys(obj(obj(doc).scanResults).sast, 'languages'),
  parse,
};
