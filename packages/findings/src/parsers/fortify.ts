import { Finding } from '../model';
import { childText, XmlElement } from '../io/xml';
import { line, severityOf } from '../normalize';
import { ParseContext, XmlFormat } from './common';

/** Every `<Issue>` below the element, in document order (the report nests them in grouping sections). */
function issues(el: XmlElement, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (c.name === 'Issue') out.push(c);
    else issues(c, out);
  }
  return out;
}

/**
 * Fortify report XML (`<ReportDefinition>`, written by ReportGenerator / Audit Workbench): one
 * finding per issue instance id, located at its primary file and line. The Fortify priority
 * (`Friority`, else the folder) is the severity.
 */
function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const seen = new Set<string>();
  for (const issue of issues(root)) {
    const iid = issue.attrs.iid;
    if (iid && seen.has(iid)) continue;
    if (iid) seen.add(iid);
    const primary = issue.children.find((c) => c.name === 'Primary');
    const category = childText(issue, 'Category') ?? 'Fortify issue';
    const fileName = childText(primary, 'FileName');
    const startLine = line(childText(primary, 'LineStart'));
    const word = childText(issue, 'Friority') ?? childText(issue, 'Folder');
    yield ctx.finding({
      tool: 'fortify',
      toolCategory: 'sast',
      ruleId: issue.attrs.ruleID ?? category,
      title: fileName ? `${category} - ${fileName}: ${startLine ?? ''}`.trim() : category,
      description: childText(issue, 'Abstract'),
      severity: severityOf(word) ?? 'info',
      toolSeverity: word,
      tags: [childText(issue, 'Kingdom')].filter((t): t is string => !!t),
      filePath: childText(primary, 'FilePath') ?? fileName,
      startLine,
      snippet: childText(primary, 'Snippet'),
      locator: iid ? `iid:${iid}` : undefined,
      toolFingerprints: iid ? { iid } : {},
    });
  }
}

export const fortifyXml: XmlFormat = {
  id: 'fortify-xml',
  title: 'Fortify report XML (ReportDefinition)',
  kind: 'xml',
  detect: (root) => root.name === 'ReportDefinition',
  parse,
};
