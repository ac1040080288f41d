import { Finding, Severity } from '../model';
import { child, children, path, XmlElement } from '../io/xml';
import { arr, obj, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext, XmlFormat } from './common';
import { serviceUrl } from './locations';

/**
 * SSLyze results: JSON of SSLyze 5.x/6.x (`server_scan_results[].scan_result.<command>.result`),
 * 3.x/4.x (`server_scan_results[].scan_commands_results.<command>`) and 2.x (`accepted_targets[]`
 * with `commands_results`), and the XML document of SSLyze 1.x/2.x (`<document SSLyzeVersion>`).
 * SSLyze reports facts, not findings; one finding per problem per server (host and port, the check
 * as locator), as DefectDojo reads it:
 *
 * - Heartbleed (CVE-2014-0160), OpenSSL CCS injection (CVE-2014-0224), ROBOT: high;
 * - SSL 2.0 and 3.0 accepted: high; TLS 1.0 and 1.1 accepted: medium ("not recommended");
 * - TLS 1.2 and 1.3 cipher suites outside BSI TR-02102-2's recommendation, as one finding per
 *   protocol listing them: low;
 * - insecure or client-initiated renegotiation, TLS compression (CRIME), certificate problems
 *   (the name does not match, or a trust store's path validation fails, listed per store): medium.
 *
 * Servers SSLyze could not connect to (`server_connectivity_errors`, `scan_status` other than
 * `COMPLETED`) have no findings.
 */

const BSI_TLS12 = new Set(
  [
    'ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
    'ECDHE_ECDSA_WITH_AES_256_CBC_SHA384',
    'ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
    'ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
    'ECDHE_ECDSA_WITH_AES_128_CCM',
    'ECDHE_ECDSA_WITH_AES_256_CCM',
    'ECDHE_RSA_WITH_AES_128_CBC_SHA256',
    'ECDHE_RSA_WITH_AES_256_CBC_SHA384',
    'ECDHE_RSA_WITH_AES_128_GCM_SHA256',
    'ECDHE_RSA_WITH_AES_256_GCM_SHA384',
    'DHE_DSS_WITH_AES_128_CBC_SHA256',
    'DHE_DSS_WITH_AES_256_CBC_SHA256',
    'DHE_DSS_WITH_AES_128_GCM_SHA256',
    'DHE_DSS_WITH_AES_256_GCM_SHA384',
    'DHE_RSA_WITH_AES_128_CBC_SHA256',
    'DHE_RSA_WITH_AES_256_CBC_SHA256',
    'DHE_RSA_WITH_AES_128_GCM_SHA256',
    'DHE_RSA_WITH_AES_256_GCM_SHA384',
    'DHE_RSA_WITH_AES_128_CCM',
    'DHE_RSA_WITH_AES_256_CCM',
    'ECDHE_PSK_WITH_AES_128_CBC_SHA256',
    'ECDHE_PSK_WITH_AES_256_CBC_SHA384',
    'ECDHE_PSK_WITH_AES_128_GCM_SHA256',
    'ECDHE_PSK_WITH_AES_256_GCM_SHA384',
    'ECDHE_PSK_WITH_AES_128_CCM_SHA256',
    'DHE_PSK_WITH_AES_128_CBC_SHA256',
    'DHE_PSK_WITH_AES_256_CBC_SHA384',
    'DHE_PSK_WITH_AES_128_GCM_SHA256',
    'DHE_PSK_WITH_AES_256_GCM_SHA384',
    'DHE_PSK_WITH_AES_128_CCM',
    'DHE_PSK_WITH_AES_256_CCM',
  ].map((c) => `TLS_${c}`),
);
const BSI_TLS13 = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_AES_128_CCM_SHA256']);
const BSI_LINK =
  'https://www.bsi.bund.de/EN/Themen/Unternehmen-und-Organisationen/Standards-und-Zertifizierung/Technische-Richtlinien/TR-nach-Thema-sortiert/tr02102/tr02102_node.html';

type Protocol = 'SSL 2.0' | 'SSL 3.0' | 'TLS 1.0' | 'TLS 1.1' | 'TLS 1.2' | 'TLS 1.3';

/** What one server's results say, whatever the layout. */
interface ServerFacts {
  host: string;
  port?: string;
  heartbleed?: boolean;
  ccsInjection?: boolean;
  robot?: string;
  clientRenegotiation?: boolean;
  secureRenegotiation?: boolean;
  compression?: boolean;
  /** Accepted cipher suite names per protocol. */
  accepted: Partial<Record<Protocol, string[]>>;
  certificateProblems: string[];
}

interface Problem {
  id: string;
  title: string;
  severity: Severity;
  description: string;
  cve?: string;
  reference?: string;
}

function problems(s: ServerFacts): Problem[] {
  const where = `${s.host}${s.port ? `:${s.port}` : ''}`;
  const out: Problem[] = [];
  if (s.heartbleed)
    out.push({
      id: 'heartbleed',
      title: 'Heartbleed',
      severity: 'high',
      description: `${where} is vulnerable to Heartbleed`,
      cve: 'CVE-2014-0160',
    });
  if (s.ccsInjection)
    out.push({
      id: 'openssl_ccs_injection',
      title: 'OpenSSL CCS injection',
      severity: 'high',
      description: `${where} is vulnerable to OpenSSL CCS injection`,
      cve: 'CVE-2014-0224',
    });
  if (s.robot && /^VULNERABLE/.test(s.robot))
    out.push({
      id: 'robot',
      title: 'ROBOT attack',
      severity: 'high',
      description: `${where} is vulnerable to the ROBOT attack (${s.robot})`,
    });
  const reneg = [
    s.clientRenegotiation && 'client-initiated renegotiation is accepted',
    s.secureRenegotiation === false && 'secure renegotiation is not supported',
  ].filter((x): x is string => !!x);
  if (reneg.length)
    out.push({
      id: 'session_renegotiation',
      title: 'Session renegotiation',
      severity: 'medium',
      description: `${where} has problems with session renegotiation:\n - ${reneg.join('\n - ')}`,
    });
  for (const [protocol, severity] of [
    ['SSL 2.0', 'high'],
    ['SSL 3.0', 'high'],
    ['TLS 1.0', 'medium'],
    ['TLS 1.1', 'medium'],
  ] as [Protocol, Severity][]) {
    if (s.accepted[protocol]?.length)
      out.push({
        id: `protocol:${protocol}`,
        title: `${protocol} not recommended`,
        severity,
        description: `${where} accepts ${protocol} connections`,
        reference: BSI_LINK,
      });
  }
  for (const [protocol, recommended] of [
    ['TLS 1.2', BSI_TLS12],
    ['TLS 1.3', BSI_TLS13],
  ] as [Protocol, Set<string>][]) {
    const weak = (s.accepted[protocol] ?? []).filter((c) => !recommended.has(c));
    if (weak.length)
      out.push({
        id: `ciphers:${protocol}`,
        title: `Unrecommended cipher suites for ${protocol}`,
        severity: 'low',
        description: `${where} accepts unrecommended cipher suites for ${protocol}:\n - ${weak.join('\n - ')}`,
        reference: BSI_LINK,
      });
  }
  if (s.compression)
    out.push({
      id: 'tls_compression',
      title: 'TLS compression (CRIME)',
      severity: 'medium',
      description: `${where} supports TLS compression`,
      cve: 'CVE-2012-4929',
    });
  if (s.certificateProblems.length)
    out.push({
      id: 'certificate_info',
      title: 'Problems in certificate deployments',
      severity: 'medium',
      description: `${where} has problems in certificate deployments:\n - ${s.certificateProblems.join('\n - ')}`,
    });
  return out;
}

function* findings(servers: Iterable<ServerFacts>, ctx: ParseContext): Generator<Finding> {
  for (const s of servers) {
    for (const p of problems(s)) {
      yield ctx.finding({
        tool: 'sslyze',
        toolCategory: 'dast',
        ruleId: p.id,
        title: p.title,
        description: p.description,
        severity: p.severity,
        vulnerabilityIds: p.cve ? [p.cve] : [],
        references: p.reference ? [p.reference] : [],
        locator: `port:${s.port ?? ''}`,
        endpoints: [{ url: serviceUrl(s.host, s.port) }],
      });
    }
  }
}

const JSON_PROTOCOLS: [string, string, Protocol][] = [
  ['ssl_2_0_cipher_suites', 'sslv2', 'SSL 2.0'],
  ['ssl_3_0_cipher_suites', 'sslv3', 'SSL 3.0'],
  ['tls_1_0_cipher_suites', 'tlsv1', 'TLS 1.0'],
  ['tls_1_1_cipher_suites', 'tlsv1_1', 'TLS 1.1'],
  ['tls_1_2_cipher_suites', 'tlsv1_2', 'TLS 1.2'],
  ['tls_1_3_cipher_suites', 'tlsv1_3', 'TLS 1.3'],
];

/** Trust-store failures and a name mismatch of each certificate deployment (3.x–6.x). */
function certificateProblems(info: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const d of arr(info.certificate_deployments)) {
    const dep = obj(d);
    if (dep.leaf_certificate_subject_matches_hostname === false)
      out.push('certificate subject does not match hostname');
    for (const r of arr(dep.path_validation_results)) {
      const pv = obj(r);
      const error = str(pv.openssl_error_string) ?? str(pv.validation_error);
      if (!error && pv.was_validation_successful !== false) continue;
      const store = obj(pv.trust_store);
      const name = str(store.name);
      const version = str(store.version);
      out.push(
        `${error ?? 'path validation failed'}${name ? ` for trust store ${name}` : ''}${version ? `, version ${version}` : ''}`,
      );
    }
  }
  return out;
}

/** The result of a command: 5.x wraps it in `{status, result}`, earlier versions do not. */
function commandResult(results: Record<string, unknown>, name: string): Record<string, unknown> {
  const c = obj(results[name]);
  return 'status' in c ? (c.status === 'COMPLETED' ? obj(c.result) : {}) : c;
}

function cipherNames(result: Record<string, unknown>): string[] {
  return arr(result.accepted_cipher_suites)
    .map((c) => str(obj(obj(c).cipher_suite).name) ?? str(obj(c).name) ?? str(obj(c).openssl_name))
    .filter((n): n is string => !!n);
}

function factsOfJson(results: Record<string, unknown>, host: string, port: string | undefined): ServerFacts {
  const get = (...names: string[]): Record<string, unknown> =>
    names.map((n) => commandResult(results, n)).find((r) => Object.keys(r).length > 0) ?? {};
  const reneg = get('session_renegotiation', 'reneg');
  const accepted: ServerFacts['accepted'] = {};
  for (const [name, legacy, protocol] of JSON_PROTOCOLS) accepted[protocol] = cipherNames(get(name, legacy));
  const heartbleed = get('heartbleed');
  const ccs = get('openssl_ccs_injection', 'openssl_ccs');
  return {
    host,
    port,
    heartbleed: heartbleed.is_vulnerable_to_heartbleed === true,
    ccsInjection: ccs.is_vulnerable_to_ccs_injection === true,
    robot: str(get('robot').robot_result) ?? str(get('robot').robot_result_enum),
    clientRenegotiation:
      reneg.accepts_client_renegotiation === true ||
      reneg.is_vulnerable_to_client_renegotiation_dos === true ||
      reneg.accepts_client_renegotiation_dos === true,
    secureRenegotiation:
      typeof reneg.supports_secure_renegotiation === 'boolean' ? reneg.supports_secure_renegotiation : undefined,
    compression: get('tls_compression', 'compression').supports_compression === true,
    accepted,
    certificateProblems: certificateProblems(get('certificate_info', 'certinfo')),
  };
}

function* jsonServers(doc: unknown): Generator<ServerFacts> {
  const report = obj(doc);
  for (const x of each(report.server_scan_results)) {
    const r = obj(x);
    if ('scan_status' in r && r.scan_status !== 'COMPLETED') continue;
    const location = obj(r.server_location ?? obj(r.server_info).server_location);
    const host = str(location.hostname) ?? str(location.ip_address) ?? 'unknown';
    yield factsOfJson(obj(r.scan_result ?? r.scan_commands_results), host, str(location.port));
  }
  for (const x of each(report.accepted_targets)) {
    const t = obj(x);
    const info = obj(t.server_info);
    const host = str(info.hostname) ?? str(info.ip_address) ?? 'unknown';
    yield factsOfJson(obj(t.commands_results), host, str(info.port));
  }
}

const XML_PROTOCOLS: [string, Protocol][] = JSON_PROTOCOLS.map(([, legacy, p]) => [legacy, p]);

function* xmlServers(root: XmlElement): Generator<ServerFacts> {
  for (const target of path(root, 'results', 'target')) {
    const attr = (section: string, el: string, name: string): string | undefined =>
      child(child(target, section), el)?.attrs[name];
    const accepted: ServerFacts['accepted'] = {};
    for (const [tag, protocol] of XML_PROTOCOLS) {
      const el = child(target, tag);
      if (el?.attrs.isProtocolSupported !== 'True') continue;
      const names = [...children(el, 'acceptedCipherSuites'), ...children(el, 'preferredCipherSuite')]
        .flatMap((c) => children(c, 'cipherSuite'))
        .map((c) => c.attrs.name)
        .filter((n): n is string => !!n);
      accepted[protocol] = [...new Set(names)];
    }
    const certinfo = child(target, 'certinfo');
    const validation = path(certinfo, 'certificateValidation');
    const certificateProblems = [
      ...path(validation[0], 'hostnameValidation')
        .filter((h) => h.attrs.certificateMatchesServerHostname === 'False')
        .map(() => 'certificate subject does not match hostname'),
      ...path(validation[0], 'pathValidation')
        .filter((p) => p.attrs.validationResult && p.attrs.validationResult !== 'ok')
        .map(
          (p) =>
            `${p.attrs.validationResult} for trust store ${p.attrs.usingTrustStore ?? ''}${p.attrs.trustStoreVersion ? `, version ${p.attrs.trustStoreVersion}` : ''}`,
        ),
    ];
    const reneg = child(child(target, 'reneg'), 'sessionRenegotiation');
    yield {
      host: target.attrs.host ?? target.attrs.ip ?? 'unknown',
      port: target.attrs.port,
      heartbleed: attr('heartbleed', 'openSslHeartbleed', 'isVulnerable') === 'True',
      ccsInjection: attr('openssl_ccs', 'openSslCcsInjection', 'isVulnerable') === 'True',
      robot: attr('robot', 'robotAttack', 'resultEnum'),
      clientRenegotiation: reneg?.attrs.canBeClientInitiated === 'True',
      secureRenegotiation: reneg?.attrs.isSecure === undefined ? undefined : reneg.attrs.isSecure === 'True',
      compression: attr('compression', 'compressionMethod', 'isSupported') === 'True',
      accepted,
      certificateProblems,
    };
  }
}

export const sslyzeJson: JsonFormat = {
  id: 'sslyze-json',
  title: 'SSLyze JSON (accepted_targets and server_scan_results layouts)',
  testedWith: 'SSLyze 3.x/4.x JSON; 2.x and 5.x/6.x layouts',
  kind: 'json',
  detect: (doc) =>
    (hasKeys(doc, 'server_scan_results') || hasKeys(doc, 'accepted_targets')) &&
    (hasKeys(doc, 'sslyze_version') || hasKeys(doc, 'sslyze_url') || hasKeys(doc, 'server_connectivity_errors')),
  parse: (doc, ctx) => findings(jsonServers(doc), ctx),
};

export const sslyzeXml: XmlFormat = {
  id: 'sslyze-xml',
  title: 'SSLyze XML (--xml_out)',
  testedWith: 'SSLyze 1.4.3 and 2.0.6',
  kind: 'xml',
  detect: (root) => root.name === 'document' && ('SSLyzeVersion' in root.attrs || 'SSLyzeWeb' in root.attrs),
  parse: (root, ctx) => findings(xmlServers(root), ctx),
};
