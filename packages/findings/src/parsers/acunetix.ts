import { Finding, FindingInit } from '../model';
import { isArrayLike } from '../io/json';
import { child, childText, path, XmlElement } from '../io/xml';
import { addCvss, arr, cwes, isObj, obj, severityOf, str, vulnIds } from '../normalize';
import { each, JsonFormat, ParseContext, XmlFormat } from './common';
import { siteUrl } from './locations';
import { htmlLinks, htmlText, isoDate } from './text';

/** Acunetix words beyond the shared scale: Invicti's "BestPractice" is advice, not a flaw. */
function acunetixSeverity(word: string | undefined): FindingInit['severity'] {
  if (word && /^best_?practice$/i.test(word.replace(/\s+/g, '_'))) return 'info';
  return severityOf(word) ?? 'info';
}

/** Acunetix 10–13 XML export (`<ScanGroup><Scan><ReportItems>`), one finding per report item. */
function* parseXml(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  for (const scan of path(root, 'Scan')) {
    const site = childText(scan, 'StartURL');
    const detectedAt = isoDate(childText(scan, 'StartTime'), 'dmy');
    for (const item of path(scan, 'ReportItems', 'ReportItem')) {
      const word = childText(item, 'Severity');
      const url = siteUrl(site, childText(item, 'Affects'));
      const init: FindingInit = {
        tool: 'acunetix',
        toolCategory: 'dast',
        ruleId: childText(item, 'ModuleName') ?? childText(item, 'Type'),
        title: childText(item, 'Name') ?? 'Acunetix finding',
        description:
          [
            htmlText(childText(item, 'Description')),
            htmlText(childText(item, 'Details')),
            htmlText(childText(item, 'DetailedInformation')),
          ]
            .filter(Boolean)
            .join('\n\n') || undefined,
        severity: acunetixSeverity(word),
        toolSeverity: word,
        cwes: cwes(path(item, 'CWEList', 'CWE').map((c) => c.attrs.id ?? c.text)),
        vulnerabilityIds: vulnIds(path(item, 'CVEList', 'CVE').map((c) => childText(c, 'Id') ?? c.text)),
        references: path(item, 'References', 'Reference')
          .map((r) => childText(r, 'URL'))
          .filter((u): u is string => !!u),
        mitigation: htmlText(childText(item, 'Recommendation')),
        endpoints: url ? [{ url, parameter: childText(item, 'Parameter') }] : [],
        suppression: /^true$/i.test(childText(item, 'IsFalsePositive') ?? '')
          ? { state: 'false_positive', source: 'tool' }
          : undefined,
        tags: [childText(item, 'Type')].filter((t): t is string => !!t),
        detectedAt,
      };
      addCvss(init, childText(child(item, 'CVSS3'), 'Descriptor'));
      addCvss(init, childText(child(item, 'CVSS'), 'Descriptor'));
      yield ctx.finding(init);
    }
  }
}

const SUPPRESSED_STATES = /falsepositive|acceptedrisk|ignored/i;

/**
 * Acunetix 360, Invicti and Netsparker (Invicti's former name) JSON: `{Generated, Target,
 * Vulnerabilities}`. The three products of one vendor write one structure, and the same report
 * bytes come from either (only the product named in the texts differs), so they are one format.
 */
function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const v of each(obj(doc).Vulnerabilities)) {
    const vuln = obj(v);
    const cls = obj(vuln.Classification);
    const word = str(vuln.Severity);
    const url = str(vuln.Url);
    const request = obj(vuln.HttpRequest);
    const state = str(vuln.State);
    const lookup = str(vuln.LookupId);
    const init: FindingInit = {
      tool: 'acunetix360',
      toolCategory: 'dast',
      ruleId: str(vuln.Type),
      title: str(vuln.Name) ?? 'Acunetix 360 finding',
      description:
        [htmlText(str(vuln.Description)), htmlText(str(vuln.Impact))].filter(Boolean).join('\n\n') || undefined,
      severity: acunetixSeverity(word),
      toolSeverity: word,
      confidence: str(vuln.Certainty),
      cwes: cwes(str(cls.Cwe)?.split(',')),
      vulnerabilityIds: vulnIds(
        arr(vuln.KnownVulnerabilities)
          .map((k) => (isObj(k) ? k.Title : k))
          .filter((k) => /^CVE-/i.test(String(k))),
      ),
      references: [
        ...(lookup ? [`https://online.acunetix360.com/issues/detail/${lookup}`] : []),
        ...htmlLinks(str(vuln.ExternalReferences)),
      ],
      mitigation: htmlText(str(vuln.RemedialProcedure)) ?? htmlText(str(vuln.RemedialActions)),
      endpoints: url ? [{ url, method: str(request.Method) }] : [],
      suppression: state && SUPPRESSED_STATES.test(state) ? { state, source: 'tool' } : undefined,
      tags: state ? [state] : [],
      detectedAt: isoDate(str(vuln.FirstSeenDate), 'dmy'),
    };
    addCvss(init, obj(cls.Cvss31).Vector);
    addCvss(init, obj(cls.Cvss).Vector);
    yield ctx.finding(init);
  }
}

export const acunetixXml: XmlFormat = {
  id: 'acunetix-xml',
  title: 'Acunetix XML export (ScanGroup)',
  testedWith: 'Acunetix ScanGroup XML exports, from corpus samples that carry no tool version',
  kind: 'xml',
  detect: (root) => root.name === 'ScanGroup' && path(root, 'Scan').length > 0,
  isEmptyReport: (doc) => (doc as XmlElement).name === 'ScanGroup',
  parse: parseXml,
};

export const acunetix360: JsonFormat = {
  id: 'acunetix360',
  title: 'Acunetix 360 / Invicti / Netsparker JSON report',
  testedWith: 'Acunetix 360, Netsparker Enterprise and Invicti Enterprise reports of 2019–2024',
  kind: 'json',
  detect: (doc) => isObj(doc) && isArrayLike(doc.Vulnerabilities) && isObj(doc.Target) && 'Generated' in doc,
  parse: parseJson,
};
