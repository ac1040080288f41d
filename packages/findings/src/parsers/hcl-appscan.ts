import { Finding, FindingInit } from '../model';
import { child, childText, children, XmlElement } from '../io/xml';
import { addCvss, cwes, line, severityOf, severityOfLevel, vulnIds } from '../normalize';
import { ParseContext, XmlFormat } from './common';

/**
 * HCL AppScan (Standard, Enterprise, on Cloud) XML report (`<xml-report name="AppScan Report">`,
 * `xmlExportVersion` 2.x, ASoC `AsocXmlExportVersion` 1.x), DAST and SAST. One finding per item of
 * `<issue-group>`, AppScan's notion of an issue (an issue type at one URL and entity, or at one
 * source location), as DefectDojo reads it; the item's id (`id-v2`, else `id`) is AppScan's identity
 * of the issue and the finding's locator. References (`<ref>`) resolve against the report's groups
 * (issue types, URLs, entities, threat classes, fix recommendations); an unresolved reference is
 * used as written. Severity: AppScan's word (Critical, High, Medium, Low, Informational), else its
 * severity id (0 informational to 4 critical), else informational. DAST issues are located at their
 * URL with the method and entity (parameter); SAST issues at their source file and line.
 */

type Groups = Map<string, XmlElement>;

/** Every `<...-group><item id>` of the report, keyed by group and id. */
function groupsOf(root: XmlElement): Groups {
  const out: Groups = new Map();
  for (const g of root.children) {
    if (!g.name.endsWith('-group') || g.name === 'issue-group') continue;
    for (const item of children(g, 'item')) if (item.attrs.id) out.set(`${g.name}/${item.attrs.id}`, item);
  }
  return out;
}

function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const groups = groupsOf(root);
  const isSast = /sast/i.test(root.attrs.technology ?? '');
  /** The referenced item of a group, and the reference as written. */
  const ref = (item: XmlElement, name: string, group: string): { text?: string; item?: XmlElement } => {
    const text = childText(child(item, name), 'ref') ?? childText(item, name);
    return { text, item: text ? groups.get(`${group}/${text}`) : undefined };
  };
  for (const item of children(child(root, 'issue-group'), 'item')) {
    const type = ref(item, 'issue-type', 'issue-type-group');
    const url = ref(item, 'url', 'url-group');
    const entity = ref(item, 'entity', 'entity-group');
    const threat = ref(item, 'threat-class', 'threat-class-group');
    const fix = ref(item, 'remediation', 'fix-recommendation-group');
    const word = childText(item, 'severity');
    const severity = severityOf(word) ?? severityOfLevel(childText(item, 'severity-id')) ?? 'info';
    const urlText = childText(url.item, 'name') ?? url.text;
    const parameter = childText(entity.item, 'name') ?? entity.text;
    const file = childText(item, 'source-file') ?? childText(item, 'location');
    const sast = isSast || (!!file && !/^[a-z]+:\/\//i.test(file));
    const id = item.attrs['id-v2'] ?? item.attrs.id;
    const init: FindingInit = {
      tool: 'hcl-appscan',
      toolCategory: sast ? 'sast' : 'dast',
      ruleId: type.item?.attrs.id ?? type.text,
      title: childText(type.item, 'name') ?? type.text ?? 'AppScan issue',
      description:
        [
          urlText && `URL: ${urlText}`,
          parameter && `Entity: ${parameter}`,
          ...children(child(item, 'cause-id'), 'ref').map((c) => `Cause: ${c.text}`),
          childText(child(child(item, 'variant-group'), 'item'), 'reasoning'),
        ]
          .filter(Boolean)
          .join('\n') || undefined,
      severity,
      toolSeverity: word ?? childText(item, 'severity-id'),
      cwes: cwes(childText(item, 'cwe') ?? childText(type.item, 'cwe')),
      vulnerabilityIds: vulnIds([childText(type.item, 'cve')]),
      references: [threat.item?.attrs.href].filter((h): h is string => !!h && /^https?:/.test(h)),
      mitigation: childText(fix.item, 'general') ?? fix.text,
      tags: [childText(threat.item, 'name') ?? threat.text].filter((t): t is string => !!t),
      locator: id ? `issue:${id}` : undefined,
      filePath: sast ? file : undefined,
      startLine: sast ? line(childText(item, 'line')) : undefined,
      endpoints:
        !sast && urlText
          ? [{ url: urlText, method: child(item, 'url')?.attrs.original_request_method, parameter }]
          : [],
    };
    addCvss(init, childText(child(item, 'cvss-vector'), 'vector'), childText(item, 'cvss-score'));
    yield ctx.finding(init);
  }
}

export const hclAppscan: XmlFormat = {
  id: 'hcl-appscan',
  title: 'HCL AppScan XML report (Standard, Enterprise, on Cloud; DAST and SAST)',
  testedWith: 'AppScan XML export 2.7 (DAST), ASoC export 1.7, SAST items',
  kind: 'xml',
  detect: (root) =>
    root.name === 'xml-report' &&
    (/appscan/i.test(root.attrs.name ?? '') ||
      'xmlExportVersion' in root.attrs ||
      'AsocXmlExportVersion' in root.attrs),
  parse,
};
