import { Finding } from '../model';
import { readJson } from '../io/json';
import { BufferSource } from '../io/source';
import { ZipArchive } from '../io/zip';
import { arr, isObj, obj, severityOf, str, vulnIds } from '../normalize';
import { each, first, hasKeys, JsonFormat, ParseContext, ZipFormat } from './common';
import { serviceUrl } from './locations';

/**
 * Microsoft Defender for Endpoint vulnerability management: the API's software vulnerabilities by
 * machine (`GET /api/vulnerabilities/machinesVulnerabilities`, `{"@odata.context", value: [...]}`),
 * and the zip export DefectDojo users make of it: `vulnerabilities/*.json` pages of that answer
 * with `machines/*.json` pages of `GET /api/machines`, which give each machine's name, address and
 * OS. One finding per record, that is per CVE, product and machine, as Defender lists them: a
 * dependency finding (the product and version as library) on the machine as resource, so the same
 * CVE on two machines is two findings and a rescan keeps each; the machine's DNS name (else its last
 * IP address) is the endpoint. Severity is Defender's word (Critical, High, Medium, Low).
 */

type Machines = Map<string, Record<string, unknown>>;

/** A machine name as a host name (spaces dropped, other punctuation `_`): Defender allows both in device names. */
function hostOf(machine: Record<string, unknown> | undefined): string | undefined {
  const dns = str(machine?.computerDnsName);
  return dns ? dns.replace(/\s+/g, '').replace(/[^A-Za-z0-9.-]/g, '_') : str(machine?.lastIpAddress);
}

function* findings(records: Iterable<unknown>, machines: Machines, ctx: ParseContext): Generator<Finding> {
  for (const x of records) {
    const v = obj(x);
    const cve = str(v.cveId);
    const machineId = str(v.machineId) ?? 'unknown';
    const machine = machines.get(machineId);
    const product = [str(v.productVendor), str(v.productName)].filter(Boolean).join(' ');
    const host = hostOf(machine);
    const word = str(v.severity);
    yield ctx.finding({
      tool: 'ms-defender',
      toolCategory: 'sca',
      ruleId: cve,
      title: `${cve ?? 'Vulnerability'} in ${product || 'software'}${str(v.productVersion) ? ` ${str(v.productVersion)}` : ''}`,
      description:
        [
          `Machine: ${str(machine?.computerDnsName) ?? machineId}`,
          machine && `OS: ${[str(machine.osPlatform), str(machine.version)].filter(Boolean).join(' ')}`,
          str(v.fixingKbId) && `Fixed by KB${str(v.fixingKbId)?.replace(/^KB/i, '')}`,
        ]
          .filter(Boolean)
          .join('\n') || undefined,
      severity: severityOf(word) ?? 'info',
      toolSeverity: word,
      vulnerabilityIds: vulnIds([cve]),
      mitigation: str(v.fixingKbId) ? `Install KB${str(v.fixingKbId)?.replace(/^KB/i, '')}` : undefined,
      library: { name: product || 'unknown', version: str(v.productVersion), ecosystem: str(v.productVendor) },
      resource: {
        id: machineId,
        type: 'machine',
        name: str(machine?.computerDnsName),
      },
      endpoints: host ? [{ url: serviceUrl(host) }] : [],
    });
  }
}

/** A page of a Defender API answer: `value` holds the records. */
const isPage = (doc: unknown): boolean => hasKeys(doc, 'value');

const isVulnerability = (v: unknown): boolean => hasKeys(v, 'cveId', 'machineId');

/** The records of the API pages in one folder of the export, a page at a time. */
function* records(archive: ZipArchive, folder: 'machines' | 'vulnerabilities'): Generator<unknown> {
  for (const name of entries(archive, folder)) yield* each(obj(readJson(new BufferSource(archive.read(name)))).value);
}

const entries = (archive: ZipArchive, folder: string): string[] => {
  const page = new RegExp(`(^|/)${folder}/[^/]+\\.json$`, 'i');
  return archive.names.filter((n) => page.test(n));
};

export const msDefenderJson: JsonFormat = {
  id: 'ms-defender',
  title: 'Microsoft Defender for Endpoint vulnerabilities API JSON',
  testedWith: 'Defender for Endpoint API machinesVulnerabilities',
  kind: 'json',
  detect: (doc) =>
    isPage(doc) &&
    (isVulnerability(first(obj(doc).value)) ||
      (arr(obj(doc).value).length === 0 &&
        /securitycenter\.(windows|microsoft)\.com/.test(String(obj(doc)['@odata.context'])))),
  parse: (doc, ctx) => findings(each(obj(doc).value), new Map(), ctx),
};

export const msDefenderZip: ZipFormat = {
  id: 'ms-defender-zip',
  title: 'Microsoft Defender for Endpoint export (zip of vulnerabilities/ and machines/ API pages)',
  testedWith: 'Defender for Endpoint API pages of vulnerabilities and machines',
  kind: 'zip',
  detect: (archive) => entries(archive, 'vulnerabilities').length > 0,
  parse: (archive, ctx) => {
    const machines: Machines = new Map();
    for (const m of records(archive, 'machines')) {
      const id = isObj(m) ? str(m.id) : undefined;
      if (id && isObj(m)) machines.set(id, m);
    }
    return findings(records(archive, 'vulnerabilities'), machines, ctx);
  },
};
