import { Finding, Severity } from '../model';
import { BufferSource } from '../io/source';
import { child, childText, path, readXml, XmlElement } from '../io/xml';
import { line, num, severityOf } from '../normalize';
import { ParseContext, XmlFormat, ZipFormat } from './common';

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
  testedWith: 'Fortify SCA report XML, from corpus samples that carry no tool version',
  kind: 'xml',
  detect: (root) => root.name === 'ReportDefinition',
  parse,
};

/** Fortify's priority from a rule's impact and an instance's likelihood (Fortify's own formula). */
function priority(impact: number, likelihood: number): Severity {
  if (impact >= 2.5) return likelihood >= 2.5 ? 'critical' : 'high';
  return likelihood >= 2.5 ? 'medium' : 'low';
}

/** Rule metadata of the FVDL: impact, accuracy, probability and CWE ids per rule (class) id. */
function rules(fvdl: XmlElement): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const rule of path(fvdl, 'EngineData', 'RuleInfo', 'Rule')) {
    const groups = Object.fromEntries(path(rule, 'MetaInfo', 'Group').map((g) => [g.attrs.name, g.text]));
    if (rule.attrs.id) out.set(rule.attrs.id, groups);
  }
  return out;
}

/** Instance ids the audit marks suppressed, with the audit's first comment. */
function audited(audit: XmlElement | undefined): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const issue of path(audit, 'IssueList', 'Issue')) {
    if (issue.attrs.suppressed === 'true' && issue.attrs.instanceId) {
      out.set(issue.attrs.instanceId, childText(path(issue, 'ThreadedComments', 'Comment')[0], 'Content'));
    }
  }
  return out;
}

/**
 * Fortify FVDL (`audit.fvdl`, alone or inside an `.fpr`): one finding per vulnerability instance,
 * located at the primary trace node's source line (the line Fortify reports, as DefectDojo's
 * "Fortify Scan v2" stores it). The severity is Fortify's priority: impact from the rule, likelihood
 * from accuracy × confidence × probability / 25. Instances suppressed in `audit.xml` are kept, marked.
 */
function* parseFvdl(fvdl: XmlElement, ctx: ParseContext, audit?: XmlElement): Generator<Finding> {
  const meta = rules(fvdl);
  const suppressed = audited(audit);
  const snippets = new Map(path(fvdl, 'Snippets', 'Snippet').map((s) => [s.attrs.id, childText(s, 'Text')]));
  const descriptions = new Map(path(fvdl, 'Description').map((d) => [d.attrs.classID, d]));
  for (const vuln of path(fvdl, 'Vulnerabilities', 'Vulnerability')) {
    const info = child(vuln, 'ClassInfo');
    const instance = child(vuln, 'InstanceInfo');
    const classId = childText(info, 'ClassID');
    const instanceId = childText(instance, 'InstanceID');
    const nodes = path(vuln, 'AnalysisInfo', 'Unified', 'Trace', 'Primary', 'Entry', 'Node');
    const node = nodes.find((n) => n.attrs.isDefault === 'true') ?? nodes[nodes.length - 1];
    const location = child(node, 'SourceLocation');
    const groups = (classId && meta.get(classId)) || {};
    const impact = num(groups.Impact);
    const likelihood =
      ((num(groups.Accuracy) ?? 1) * (num(childText(instance, 'Confidence')) ?? 1) * (num(groups.Probability) ?? 1)) /
      25;
    const instanceSeverity = num(childText(instance, 'InstanceSeverity')) ?? num(childText(info, 'DefaultSeverity'));
    const severity: Severity =
      impact !== undefined
        ? priority(impact, likelihood)
        : (severityOf(instanceSeverity !== undefined ? String(instanceSeverity * 2) : undefined) ?? 'medium');
    const type = childText(info, 'Type') ?? 'Fortify issue';
    const subtype = childText(info, 'Subtype');
    const file = location?.attrs.path;
    const startLine = line(location?.attrs.line);
    const description = classId ? descriptions.get(classId) : undefined;
    const comment = instanceId ? suppressed.get(instanceId) : undefined;
    yield ctx.finding({
      tool: 'fortify',
      toolCategory: 'sast',
      ruleId: classId,
      title:
        `${type}${subtype ? `: ${subtype}` : ''}${file ? ` - ${file.split('/').pop()}: ${startLine ?? ''}` : ''}`.trim(),
      description: childText(description, 'Abstract')?.replace(/<[^>]+>/g, ''),
      severity,
      toolSeverity: instanceSeverity !== undefined ? String(instanceSeverity) : undefined,
      confidence: childText(instance, 'Confidence'),
      cwes: [...(groups.altcategoryCWE ?? '').matchAll(/CWE ID (\d+)/gi)].map((m) => Number(m[1])),
      tags: [childText(info, 'Kingdom')].filter((t): t is string => !!t),
      mitigation: childText(description, 'Recommendations')?.replace(/<[^>]+>/g, ''),
      filePath: file,
      startLine,
      endLine: line(location?.attrs.lineEnd),
      snippet: location?.attrs.snippet ? snippets.get(location.attrs.snippet) : undefined,
      locator: instanceId ? `instance:${instanceId}` : undefined,
      toolFingerprints: instanceId ? { InstanceID: instanceId } : {},
      suppression:
        instanceId && suppressed.has(instanceId)
          ? { state: 'suppressed', source: 'tool', justification: comment }
          : undefined,
    });
  }
}

export const fortifyFvdl: XmlFormat = {
  id: 'fortify-fvdl',
  title: 'Fortify FVDL XML (audit.fvdl)',
  testedWith: 'Fortify SCA FVDL, from corpus samples that carry no tool version',
  kind: 'xml',
  detect: (root) => root.name === 'FVDL',
  parse: (root, ctx) => parseFvdl(root, ctx),
};

/** Fortify project results (`.fpr`): a zip holding `audit.fvdl` and, once audited, `audit.xml`. */
export const fortifyFpr: ZipFormat = {
  id: 'fortify-fpr',
  title: 'Fortify project results (.fpr archive)',
  testedWith: 'Fortify SCA .fpr archives holding audit.fvdl, from corpus samples',
  kind: 'zip',
  detect: (archive) => archive.find('audit.fvdl') !== undefined,
  parse: (archive, ctx) => {
    const fvdl = readXml(new BufferSource(archive.read(archive.find('audit.fvdl') ?? 'audit.fvdl')));
    const auditName = archive.find('audit.xml');
    return parseFvdl(fvdl, ctx, auditName ? readXml(new BufferSource(archive.read(auditName))) : undefined);
  },
};
