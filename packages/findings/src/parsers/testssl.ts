import { Finding, Severity } from '../model';
import { cwes, isObj, obj, str, vulnIds } from '../normalize';
import { CsvFormat, each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';
import { serviceUrl } from './locations';

/**
 * testssl.sh 3.x results: `--csvfile` (`id, fqdn/ip, port, severity, finding, cve, cwe`), `--jsonfile`
 * (an array of the same records) and `--jsonfile-pretty` (`scanResult[]` with a section per check).
 * One finding per record whose severity is not `OK`, per CVE where a record names several (DROWN
 * names two), as DefectDojo counts them; located at the host and port, with the check id, port and
 * CVE as locator, so a check on two ports of a host stays two findings. `INFO` records are
 * informational findings, `WARN` and `FATAL` (scan problems) too; `OK` and `DEBUG` records and the
 * rating records (scores, grade and its cap reasons), which restate the findings, are not findings.
 * Severities: testssl's words `LOW`, `MEDIUM`, `HIGH`, `CRITICAL`.
 */

const RATING = /^(.*_score(_weighted)?|final_score|overall_grade|grade_cap_reason_\d+|grade_cap_warning_\d+)$/;

const SEVERITY: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  info: 'info',
  warn: 'info',
  fatal: 'info',
};

interface Row {
  id?: string;
  /** `fqdn/ip` as testssl writes it: `host/1.2.3.4`, or `host/` when unresolved. */
  target?: string;
  port?: string;
  severity?: string;
  finding?: string;
  cve?: string;
  cwe?: string;
}

function* findings(rows: Iterable<Row>, ctx: ParseContext): Generator<Finding> {
  for (const row of rows) {
    const id = row.id?.trim();
    const word = row.severity?.trim() ?? '';
    const severity = SEVERITY[word.toLowerCase()];
    if (!id || !severity || RATING.test(id)) continue;
    const [fqdn, ip] = (row.target ?? '').split('/');
    const host = fqdn?.trim() || ip?.trim() || 'unknown';
    const cves = vulnIds([], row.cve ?? '');
    for (const cve of cves.length ? cves : [undefined]) {
      yield ctx.finding({
        tool: 'testssl',
        toolCategory: 'dast',
        ruleId: id,
        title: id,
        description: [row.finding, ip && `IP: ${ip}`].filter(Boolean).join('\n') || undefined,
        severity,
        toolSeverity: word,
        cwes: cwes(row.cwe ?? ''),
        vulnerabilityIds: cve ? [cve] : [],
        references: cve ? [`https://nvd.nist.gov/vuln/detail/${cve}`] : [],
        locator: `${id}/port:${row.port ?? ''}/${cve ?? ''}`,
        endpoints: [{ url: serviceUrl(host, row.port) }],
      });
    }
  }
}

function rowOf(r: Record<string, unknown>, target: string | undefined, port: unknown): Row {
  return {
    id: str(r.id),
    target,
    port: str(port),
    severity: str(r.severity),
    finding: str(r.finding),
    cve: str(r.cve),
    cwe: str(r.cwe),
  };
}

/** `--jsonfile`: flat records with `ip` (`fqdn/ip`) and `port`. */
function* flatRows(doc: unknown): Generator<Row> {
  for (const x of each(doc)) {
    const r = obj(x);
    yield rowOf(r, str(r.ip), r.port);
  }
}

/** `--jsonfile-pretty`: per target, each section (`protocols`, `vulnerabilities`, ...) is a record list. */
function* prettyRows(doc: unknown): Generator<Row> {
  for (const x of each(obj(doc).scanResult)) {
    const target = obj(x);
    const name = `${str(target.targetHost) ?? ''}/${str(target.ip) ?? ''}`;
    for (const section of Object.values(target)) {
      for (const r of each(section)) if (isObj(r)) yield rowOf(r, name, target.port);
    }
  }
}

const isRecord = (r: unknown): boolean => hasKeys(r, 'id', 'ip', 'port', 'severity', 'finding');

export const testsslCsv: CsvFormat = {
  id: 'testssl-csv',
  title: 'testssl.sh CSV (--csvfile)',
  testedWith: 'testssl.sh 3.0 and 3.1',
  kind: 'csv',
  detect: (header) => ['id', 'fqdn/ip', 'port', 'severity', 'finding'].every((h) => header.includes(h)),
  parse: (rows, ctx) =>
    findings(
      rows.map((r) => ({ ...r, target: r['fqdn/ip'] })),
      ctx,
    ),
};

export const testsslJson: JsonFormat = {
  id: 'testssl-json',
  title: 'testssl.sh JSON (--jsonfile, --jsonfile-pretty)',
  testedWith: 'testssl.sh 3.x --jsonfile and --jsonfile-pretty layouts',
  kind: 'json',
  detect: (doc) =>
    isArrayLikeOf(doc, isRecord) || (hasKeys(doc, 'scanResult', 'Invocation') && hasKeys(doc, 'version', 'openssl')),
  parse: (doc, ctx) => findings(Array.isArray(doc) || !isObj(doc) ? flatRows(doc) : prettyRows(doc), ctx),
};
