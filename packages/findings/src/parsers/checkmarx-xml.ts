import { Finding } from '../model';
import { childText, path, XmlElement } from '../io/xml';
import { cwes, line, severityOf } from '../normalize';
import { ParseContext, XmlFormat } from './common';

/**
 * Checkmarx SAST (CxSAST) XML. One finding per result path, located at the path's sink (last node):
 * flows from different sources into the same sink statement are one place to fix, so they merge.
 */
function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  for (const query of path(root, 'Query')) {
    const name = (query.attrs.name ?? 'Checkmarx query').replace(/_/g, ' ');
    for (const result of path(query, 'Result')) {
      const nodes = path(result, 'Path', 'PathNode');
      const sink = nodes[nodes.length - 1];
      const source = nodes[0];
      const file = childText(sink, 'FileName') ?? result.attrs.FileName;
      const sev = result.attrs.Severity ?? query.attrs.Severity ?? 'Info';
      const falsePositive = result.attrs.FalsePositive === 'True';
      const similarity = path(result, 'Path')[0]?.attrs.SimilarityId;
      yield ctx.finding({
        tool: 'checkmarx',
        toolCategory: 'sast',
        ruleId: query.attrs.id ?? query.attrs.name,
        title: `${name} (${(file ?? '').split(/[\\/]/).pop()})`,
        description: nodes.length
          ? `Source: ${childText(source, 'FileName')}:${childText(source, 'Line')} ${childText(source, 'Name') ?? ''}\nSink: ${file}:${childText(sink, 'Line')} ${childText(sink, 'Name') ?? ''}`
          : undefined,
        severity: severityOf(sev) ?? 'info',
        toolSeverity: sev,
        cwes: cwes(query.attrs.cweId),
        tags: [query.attrs.group, query.attrs.Language].filter((t): t is string => !!t),
        references: [result.attrs.DeepLink].filter((u): u is string => !!u),
        filePath: file,
        startLine: line(childText(sink, 'Line')) ?? line(result.attrs.Line),
        snippet: childText(path(sink, 'Snippet', 'Line')[0], 'Code'),
        locator: similarity ? `similarity:${similarity}` : undefined,
        toolFingerprints: similarity ? { SimilarityId: similarity } : {},
        suppression: falsePositive ? { state: 'false_positive', source: 'tool' } : undefined,
        detectedAt: root.attrs.ScanStart,
      });
    }
  }
}

export const checkmarxXml: XmlFormat = {
  id: 'checkmarx-xml',
  title: 'Checkmarx SAST XML (CxXMLResults)',
  testedWith: 'CxSAST 8.6.0 HF1',
  kind: 'xml',
  detect: (root) => root.name === 'CxXMLResults',
  parse,
};
