import { Finding } from '../model';
import { child, childText, children, path, XmlElement } from '../io/xml';
import { cwes, severityOf, severityOfLevel } from '../normalize';
import { ParseContext, XmlFormat } from './common';
import { originUrl, siteUrl } from './locations';
import { htmlLinks, htmlText } from './text';

/**
 * Fortify WebInspect (Micro Focus / OpenText) XML, written from its documentation: the scan export
 * (`<Sessions>`, each `<Session>` a request with the `<Issues>` found in it) and the findings export
 * (`<Scan>` with `<Issues>`, each `<Issue>` carrying its URL). One record per issue and session;
 * records of one check (`VulnerabilityID`) on one host merge into one finding whose endpoints are
 * the URLs and attacked parameters, as for Burp: WebInspect lists a vulnerability once per check,
 * with its locations under it. Severity: WebInspect's 0–4 (informational, low, medium, high,
 * critical), or its word. CWEs from `<Classification kind="CWE">`; the `ReportSection`s (Summary,
 * Implication, Execution, Fix, Reference Info) fill description, mitigation and references.
 */

/** The text of a named `<ReportSection>` (HTML in WebInspect's exports). */
function section(issue: XmlElement, ...names: string[]): string | undefined {
  const found = children(issue, 'ReportSection').filter((s) =>
    names.some((n) => n.toLowerCase() === childText(s, 'Name')?.toLowerCase()),
  );
  return found.map((s) => childText(s, 'SectionText') ?? '').join('\n') || undefined;
}

/** Non-empty parts as paragraphs; undefined when none is left. */
function paragraphs(...parts: (string | undefined)[]): string | undefined {
  return parts.filter(Boolean).join('\n\n') || undefined;
}

/** The attacked parameter, from `AttackParamDescriptor` ("parameter=username" or the name alone). */
function parameterOf(el: XmlElement | undefined): string | undefined {
  const d = childText(el, 'AttackParamDescriptor');
  return d?.replace(/^parameter=/i, '') || undefined;
}

function toFinding(
  issue: XmlElement,
  where: { url?: string; method?: string; parameter?: string },
  ctx: ParseContext,
): Finding {
  const word = childText(issue, 'Severity');
  const classifications = path(issue, 'Classifications', 'Classification');
  const references = section(issue, 'Reference Info', 'References');
  return ctx.finding({
    tool: 'webinspect',
    toolCategory: 'dast',
    ruleId: childText(issue, 'VulnerabilityID') ?? childText(issue, 'CheckID'),
    title: childText(issue, 'Name') ?? 'WebInspect issue',
    description: paragraphs(
      where.url && `URL: ${where.url}`,
      ...['Summary', 'Implication', 'Execution'].map((name) => htmlText(section(issue, name))),
    ),
    severity: severityOfLevel(word) ?? severityOf(word) ?? 'info',
    toolSeverity: word,
    // WebInspect writes the identifier as "CWE ID 89".
    cwes: cwes(
      classifications
        .filter((c) => /cwe/i.test(c.attrs.kind ?? ''))
        .map((c) => (c.attrs.identifier ?? c.text).replace(/^\s*CWE\s*ID\s*/i, 'CWE-')),
    ),
    references: [
      ...htmlLinks(references),
      ...classifications.map((c) => c.attrs.href).filter((h): h is string => !!h && /^https?:/.test(h)),
    ],
    mitigation: htmlText(section(issue, 'Fix')),
    tags: [
      childText(issue, 'CheckTypeID'),
      ...classifications.filter((c) => !/cwe/i.test(c.attrs.kind ?? '')).map((c) => c.text),
    ].filter((t): t is string => !!t),
    endpoints: where.url ? [{ url: where.url, method: where.method, parameter: where.parameter }] : [],
  });
}

/** A request's URL: `<URL>`, else scheme, host and port. */
function urlOf(el: XmlElement): string | undefined {
  const host = childText(el, 'Host');
  const scheme = childText(el, 'Scheme') ?? 'http';
  const port = childText(el, 'Port');
  return siteUrl(host ? originUrl(scheme, host, port) : undefined, childText(el, 'URL'));
}

/** The request line's method, from the raw request WebInspect records (`GET /path HTTP/1.1`). */
function methodOf(session: XmlElement): string | undefined {
  return /^\s*([A-Z]+)\s/.exec(childText(session, 'RawRequest') ?? '')?.[1];
}

function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  if (root.name === 'Sessions') {
    for (const session of children(root, 'Session')) {
      const where = { url: urlOf(session), method: methodOf(session), parameter: parameterOf(session) };
      for (const issue of path(session, 'Issues', 'Issue')) yield toFinding(issue, where, ctx);
    }
    return;
  }
  for (const issue of path(root, 'Issues', 'Issue')) {
    yield toFinding(issue, { url: urlOf(issue), parameter: parameterOf(issue) }, ctx);
  }
}

const isIssue = (i: XmlElement): boolean => !!child(i, 'VulnerabilityID') || !!child(i, 'CheckTypeID');

export const webinspect: XmlFormat = {
  id: 'webinspect',
  title: 'Fortify WebInspect XML (scan export <Sessions>, findings export <Scan>)',
  testedWith: 'WebInspect scan and findings exports as documented (no sample report)',
  kind: 'xml',
  detect: (root) =>
    (root.name === 'Sessions' && children(root, 'Session').some((s) => !!child(s, 'URL') || !!child(s, 'Issues'))) ||
    (root.name === 'Scan' && path(root, 'Issues', 'Issue').some(isIssue)),
  isEmptyReport: (doc) => (doc as XmlElement).name === 'Sessions' || (doc as XmlElement).name === 'Scan',
  parse,
};
