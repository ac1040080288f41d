import { Finding, Severity } from '../model';
import { childText, path, XmlElement } from '../io/xml';
import { isArrayLike } from '../io/json';
import { isObj, obj, shorten, str } from '../normalize';
import { each, first, isArrayLikeOf, JsonFormat, ParseContext, XmlFormat } from './common';
import { originUrl, siteUrl } from './locations';

/**
 * Nikto XML (`-Format xml`, nxmlversion 1.1 and 1.2) and JSON (`-Format json`). Nikto assigns no
 * severity: a check with an OSVDB reference is medium, the rest informational (as in DefectDojo).
 * Records with the same message on one host merge into one finding, their URLs its endpoints.
 */
function severity(osvdb: string | undefined): Severity {
  return osvdb && osvdb !== '0' ? 'medium' : 'info';
}

function finding(
  ctx: ParseContext,
  msg: string,
  id: string | undefined,
  osvdb: string | undefined,
  url: string | undefined,
  method: string | undefined,
  references: string[],
): Finding {
  const sev = severity(osvdb);
  return ctx.finding({
    tool: 'nikto',
    toolCategory: 'dast',
    ruleId: id,
    // The whole message: its first sentence alone is often no title ("/public/: This might be interesting.").
    title: shorten(msg.trim()),
    description: msg,
    severity: sev,
    vulnerabilityIds: osvdb && osvdb !== '0' ? [`OSVDB-${osvdb}`] : [],
    references,
    locator: `${sev}:${msg}`,
    endpoints: url ? [{ url, method }] : [],
  });
}

function* parseXml(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const scans = [...path(root, 'scandetails'), ...path(root, 'niktoscan', 'scandetails')];
  for (const scan of scans) {
    const site = scan.attrs.sitename ?? scan.attrs.siteip;
    for (const item of path(scan, 'item')) {
      const msg = childText(item, 'description') ?? 'Nikto finding';
      const url = childText(item, 'namelink') ?? childText(item, 'iplink') ?? siteUrl(site, childText(item, 'uri'));
      const osvdbLink = item.attrs.osvdblink;
      yield finding(ctx, msg, item.attrs.id, item.attrs.osvdbid, url, item.attrs.method, osvdbLink ? [osvdbLink] : []);
    }
  }
}

function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const host of isArrayLike(doc) ? each(doc) : [doc]) {
    const h = obj(host);
    const name = str(h.host) ?? str(h.ip);
    const port = str(h.port);
    const scheme = port === '443' || port === '8443' ? 'https' : 'http';
    const site = name ? originUrl(scheme, name, port) : undefined;
    for (const v of each(h.vulnerabilities)) {
      const vuln = obj(v);
      const refs = str(vuln.references);
      yield finding(
        ctx,
        str(vuln.msg) ?? 'Nikto finding',
        str(vuln.id),
        str(vuln.OSVDB),
        siteUrl(site, str(vuln.url)),
        str(vuln.method),
        refs ? [refs] : [],
      );
    }
  }
}

function isNiktoHost(v: unknown): boolean {
  if (!isObj(v) || !isArrayLike(v.vulnerabilities) || !('host' in v || 'ip' in v)) return false;
  const firstVuln = first(v.vulnerabilities);
  return firstVuln === undefined
    ? 'banner' in v && 'port' in v
    : isObj(firstVuln) && 'msg' in firstVuln && ('OSVDB' in firstVuln || 'id' in firstVuln);
}

export const niktoXml: XmlFormat = {
  id: 'nikto-xml',
  title: 'Nikto XML report',
  testedWith: 'Nikto 2.1.6 (nxmlversion 1.2)',
  kind: 'xml',
  detect: (root) => root.name === 'niktoscan',
  parse: parseXml,
};

export const niktoJson: JsonFormat = {
  id: 'nikto-json',
  title: 'Nikto JSON report',
  testedWith: 'Nikto 2.x JSON, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) => (isArrayLike(doc) ? isArrayLikeOf(doc, isNiktoHost) : isNiktoHost(doc)),
  // Nikto 2.5 writes `[]` for a scan of no reachable host.
  isEmptyReport: (doc) => Array.isArray(doc) && doc.length === 0,
  parse: parseJson,
};
