import { isArrayLike } from '../io/json';
import { Finding, FindingInit, Severity } from '../model';
import { arr, cwes, isObj, line, obj, severityOf, shorten, str } from '../normalize';
import { each, first, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * MobSF static analysis reports (`api/v1/report_json`, Android and iOS, MobSF 3.x–4.x) and
 * mobsfscan's JSON. Left out of the app report, as DefectDojo leaves them out: the API inventory
 * (`android_api`, `ios_api`: calls the app makes, not weaknesses), Mach-O hardening flags,
 * candidate secret strings, trackers and NIAP requirements.
 */

/** MobSF's words: high, warning (its middle level), info, secure/good (a passed check); permissions are dangerous or not. */
function mobsfSeverity(word: unknown): Severity {
  const w = str(word)?.toLowerCase() ?? '';
  if (w === 'dangerous') return 'high';
  if (w === 'warning') return 'medium';
  if (['secure', 'good', 'normal', 'signature', 'signatureorsystem', 'hotspot'].includes(w)) return 'info';
  return severityOf(w) ?? 'info';
}

/** Manifest titles are HTML fragments ("Debug Enabled For App<br>[android:debuggable=true]"). */
function plain(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

type Item = Pick<FindingInit, 'ruleId' | 'title' | 'description' | 'filePath' | 'cwes' | 'references'> & {
  section: string;
  severity: unknown;
};

function* appItems(o: Record<string, unknown>): Generator<Item> {
  const permissions = o.permissions;
  if (isArrayLike(permissions)) {
    for (const p of each(permissions)) {
      const x = obj(p);
      const name = str(x.name) ?? 'permission';
      yield {
        section: 'permission',
        ruleId: name,
        title: name,
        severity: x.status,
        description: [str(x.description), str(x.reason)].filter(Boolean).join('\n\n') || undefined,
      };
    }
  } else {
    for (const [name, p] of Object.entries(obj(permissions))) {
      const x = obj(p);
      yield {
        section: 'permission',
        ruleId: name,
        title: name,
        severity: x.status,
        description: [str(x.info), str(x.description)].filter(Boolean).join('\n\n') || undefined,
      };
    }
  }
  const code = obj(o.code_analysis);
  const rules = isObj(code.findings) ? code.findings : code;
  for (const [rule, r] of Object.entries(rules)) {
    const meta = obj(obj(r).metadata);
    if (!isObj(obj(r).metadata)) continue;
    const files = Object.entries(obj(obj(r).files)).map(([file, lines]) => `${file}: ${String(lines)}`);
    yield {
      section: 'code',
      ruleId: rule,
      title: str(meta.description) ? shorten(String(meta.description)) : rule,
      severity: meta.severity,
      description: [str(meta.description), files.length ? `Files:\n${files.join('\n')}` : undefined]
        .filter(Boolean)
        .join('\n\n'),
      cwes: cwes(meta.cwe),
      references: [str(meta.ref)].filter((u): u is string => !!u),
    };
  }
  const binary = o.binary_analysis;
  if (isArrayLike(binary)) {
    // One entry per shared library, one check per key.
    for (const b of each(binary)) {
      const lib = obj(b);
      for (const [check, c] of Object.entries(lib)) {
        const x = obj(c);
        if (check === 'name' || !isObj(c)) continue;
        const description = str(x.description) ?? check;
        yield {
          section: 'binary',
          ruleId: check,
          title: description.split('.')[0],
          severity: x.severity,
          description,
          filePath: str(lib.name),
          cwes: cwes(x.cwe),
        };
      }
    }
  } else {
    const b = obj(binary);
    for (const [title, c] of Object.entries(isObj(b.findings) ? b.findings : b)) {
      const x = obj(c);
      if (!('severity' in x)) continue;
      yield {
        section: 'binary',
        ruleId: title,
        title,
        severity: x.severity,
        description: str(x.detailed_desc) ?? str(x.description),
        cwes: cwes(x.cwe),
      };
    }
  }
  const manifest = o.manifest_analysis;
  for (const m of each(isObj(manifest) ? manifest.manifest_findings : manifest)) {
    const x = obj(m);
    const title = plain(str(x.title) ?? str(x.name) ?? 'Manifest issue');
    yield {
      section: 'manifest',
      ruleId: str(x.rule) ?? title,
      title,
      severity: x.severity ?? x.stat,
      description: str(x.description) ?? str(x.desc),
    };
  }
  const certificate = obj(o.certificate_analysis);
  for (const c of each(certificate.certificate_findings)) {
    // [severity, description, title]; older reports leave the title out.
    const [severity, description, title] = arr(c).map(str);
    yield {
      section: 'certificate',
      ruleId: title ?? description,
      title: title ?? description ?? 'Certificate issue',
      severity,
      description,
    };
  }
  const network = o.network_security;
  for (const n of each(isObj(network) ? network.network_findings : network)) {
    const x = obj(n);
    const description = str(x.description) ?? 'Network security issue';
    const scope = arr(x.scope).map(String).join(', ');
    yield {
      section: 'network',
      ruleId: description,
      title: shorten(scope ? `${description} (${scope})` : description),
      severity: x.severity,
      description,
    };
  }
  for (const a of each(obj(o.ats_analysis).ats_findings)) {
    const x = obj(a);
    const title = str(x.issue) ?? 'App Transport Security issue';
    yield { section: 'ats', ruleId: title, title, severity: x.severity ?? x.status, description: str(x.description) };
  }
}

function* parseApp(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  const app = str(o.package_name) ?? str(o.bundle_id) ?? str(o.app_name);
  for (const item of appItems(o)) {
    const { section, severity, ...rest } = item;
    yield ctx.finding({
      tool: 'mobsf',
      toolCategory: 'sast',
      ...rest,
      ruleId: `${section}:${rest.ruleId ?? rest.title}`,
      severity: mobsfSeverity(severity),
      toolSeverity: str(severity),
      tags: [section, app].filter((t): t is string => !!t),
    });
  }
}

/** mobsfscan rates ERROR, WARNING and INFO; its INFO findings are missing protections, read as low (as DefectDojo does). */
const SCAN_SEVERITY: Record<string, Severity> = { ERROR: 'high', WARNING: 'medium', INFO: 'low' };

function* parseScan(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const [rule, r] of Object.entries(obj(obj(doc).results))) {
    const meta = obj(obj(r).metadata);
    const sev = str(meta.severity) ?? 'INFO';
    const tags = [str(meta.masvs), str(meta['owasp-mobile'])].filter((t): t is string => !!t);
    const common: FindingInit = {
      tool: 'mobsfscan',
      toolCategory: 'sast',
      ruleId: rule,
      title: rule,
      description: str(meta.description),
      severity: SCAN_SEVERITY[sev.toUpperCase()] ?? severityOf(sev) ?? 'info',
      toolSeverity: sev,
      cwes: cwes(meta.cwe),
      references: [str(meta.reference)].filter((u): u is string => !!u),
    };
    const files = arr(obj(r).files).map(obj);
    // A rule about what the app lacks (pinning, root detection) matches no file.
    if (files.length === 0) yield ctx.finding({ ...common, tags: [...tags] });
    for (const f of files) {
      const lines = arr(f.match_lines);
      yield ctx.finding({
        ...common,
        tags: [...tags],
        filePath: str(f.file_path),
        startLine: line(lines[0]),
        endLine: line(lines[1]),
        snippet: str(f.match_string),
      });
    }
  }
}

export const mobsf: JsonFormat = {
  id: 'mobsf',
  title: 'MobSF static analysis report JSON (REST API report_json; Android and iOS)',
  testedWith: 'MobSF v3.1.9 and v3.7.9 beta (api/v1/report_json)',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'md5') &&
    (hasKeys(doc, 'app_name') || hasKeys(doc, 'file_name')) &&
    ['code_analysis', 'binary_analysis', 'manifest_analysis', 'permissions'].some((k) => k in obj(doc)),
  parse: parseApp,
};

export const mobsfscan: JsonFormat = {
  id: 'mobsfscan',
  title: 'mobsfscan JSON (mobsfscan --json)',
  testedWith: 'mobsfscan 0.0.6',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'results') &&
    isObj(obj(doc).results) &&
    (hasKeys(doc, 'mobsfscan_version') ||
      ['masvs', 'owasp-mobile'].some((k) => k in obj(obj(first(Object.values(obj(obj(doc).results)))).metadata))),
  parse: parseScan,
};
