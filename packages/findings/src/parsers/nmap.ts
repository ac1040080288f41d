import { Finding, FindingInit } from '../model';
import { child, children, path, XmlElement } from '../io/xml';
import { addCvss, num, severityOf, vulnIds } from '../normalize';
import { ParseContext, XmlFormat } from './common';
import { serviceUrl } from './locations';

/**
 * Nmap XML (`nmap -oX`, `<nmaprun>`, xmloutputversion 1.0x, Nmap 6–7). One informational finding per
 * open port of a host ("Open port: 22/tcp", the service and version in its description), preceded, with
 * the `vulners` NSE script, by one finding per vulnerability it lists for that port (its CVSS score is the
 * severity, the CVE the rule), as DefectDojo reads it. Closed, filtered and `open|filtered` ports are
 * not findings: Nmap could not tell they accept connections. The host is named by its first host name,
 * else its address; the port and protocol are the locator, so a port stays one finding across rescans.
 */

/**
 * The host's reverse-DNS (PTR) name, else the name it was scanned by, else its IP address, else its
 * MAC address: the PTR name is the machine's own, the one DefectDojo shows too.
 */
function hostName(host: XmlElement): string {
  const names = path(host, 'hostnames', 'hostname');
  const name = (names.find((n) => n.attrs.type === 'PTR') ?? names[0])?.attrs.name;
  if (name) return name;
  const addrs = children(host, 'address');
  return (addrs.find((a) => a.attrs.addrtype !== 'mac') ?? addrs[0])?.attrs.addr ?? 'unknown';
}

/** An NSE `<table>`'s `<elem key=...>` values. */
function elems(table: XmlElement): Record<string, string> {
  return Object.fromEntries(children(table, 'elem').map((e) => [e.attrs.key ?? '', e.text]));
}

/** ISO 8601 of a Unix timestamp attribute. */
function isoOf(seconds: string | undefined): string | undefined {
  const n = num(seconds);
  return n === undefined ? undefined : new Date(n * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

function* parse(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const startedAt = isoOf(root.attrs.start);
  for (const host of children(root, 'host')) {
    const name = hostName(host);
    for (const port of path(host, 'ports', 'port')) {
      if (child(port, 'state')?.attrs.state !== 'open') continue;
      const protocol = port.attrs.protocol ?? 'tcp';
      const portId = port.attrs.portid ?? '';
      const service = child(port, 'service');
      const product = [service?.attrs.product, service?.attrs.version].filter(Boolean).join(' ');
      const url = serviceUrl(name, portId, protocol);
      const locator = `port:${portId}/${protocol}`;
      for (const script of children(port, 'script').filter((s) => s.attrs.id === 'vulners')) {
        for (const cpeTable of children(script, 'table')) {
          for (const vuln of children(cpeTable, 'table')) {
            const e = elems(vuln);
            if (!e.id) continue;
            const score = num(e.cvss);
            const init: FindingInit = {
              tool: 'nmap',
              toolCategory: 'dast',
              ruleId: e.id,
              title: `${e.id} in ${product || cpeTable.attrs.key || `${portId}/${protocol}`}`,
              description: [
                `Vulners reports ${e.id} for ${cpeTable.attrs.key ?? product} on ${portId}/${protocol}.`,
                e.is_exploit === 'true' ? 'A public exploit exists.' : '',
              ]
                .filter(Boolean)
                .join('\n'),
              severity: severityOf(score) ?? 'info',
              toolSeverity: e.cvss,
              vulnerabilityIds: vulnIds([e.id]),
              references: [`https://vulners.com/${e.type ?? 'cve'}/${e.id}`],
              tags: [cpeTable.attrs.key, e.type].filter((t): t is string => !!t),
              locator,
              endpoints: [{ url }],
              detectedAt: startedAt,
            };
            addCvss(init, undefined, e.cvss);
            yield ctx.finding(init);
          }
        }
      }
      yield ctx.finding({
        tool: 'nmap',
        toolCategory: 'dast',
        ruleId: 'open-port',
        title: `Open port: ${portId}/${protocol}`,
        description:
          [
            service?.attrs.name && `Service: ${service.attrs.name}`,
            product && `Product: ${product}`,
            service?.attrs.extrainfo && `Extra info: ${service.attrs.extrainfo}`,
            ...children(service, 'cpe').map((c) => `CPE: ${c.text}`),
            ...children(port, 'script')
              .filter((s) => s.attrs.id !== 'vulners')
              .map((s) => `${s.attrs.id}: ${s.attrs.output ?? ''}`),
          ]
            .filter(Boolean)
            .join('\n') || undefined,
        severity: 'info',
        tags: service?.attrs.name ? [service.attrs.name] : [],
        locator,
        endpoints: [{ url }],
        detectedAt: startedAt,
      });
    }
  }
}

export const nmap: XmlFormat = {
  id: 'nmap',
  title: 'Nmap XML (-oX), with vulners NSE script results',
  testedWith: 'Nmap 6.40 and 7.60 (XML output 1.04), vulners NSE script',
  kind: 'xml',
  detect: (root) => root.name === 'nmaprun',
  parse,
};
