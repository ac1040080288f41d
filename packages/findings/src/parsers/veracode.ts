import { Finding, FindingInit, Severity } from '../model';
import { path, XmlElement } from '../io/xml';
import { addCvss, arr, cwes, isObj, line, num, obj, str, vulnIds } from '../normalize';
import { each, isArrayLikeOf, JsonFormat, ParseContext, XmlFormat } from './common';
import { htmlText } from './text';

/** Veracode severity 0–5: informational, very low, low, medium, high, very high. */
const SEVERITY: Severity[] = ['info', 'info', 'low', 'medium', 'high', 'critical'];

function severityOf(v: unknown): Severity {
  const n = num(v);
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= 5 ? SEVERITY[n] : 'info';
}

/** A flaw Veracode accepted as mitigated (or as a false positive) is kept, marked suppressed. */
function flawSuppression(flaw: XmlElement): FindingInit['suppression'] {
  if (flaw.attrs.mitigation_status?.toLowerCase() !== 'accepted') return undefined;
  const state = /false ?positive/i.test(flaw.attrs.remediation_status ?? '') ? 'false_positive' : 'mitigated';
  return { state, source: 'tool', justification: flaw.attrs.mitigation_status_desc };
}

/**
 * Veracode detailed report XML (`<detailedreport>`, format 1.5): static and dynamic flaws, one
 * finding per issue id, and one per vulnerability of each vulnerable third-party component.
 */
function* parseXml(root: XmlElement, ctx: ParseContext): Generator<Finding> {
  const seen = new Set<string>();
  for (const category of path(root, 'severity', 'category')) {
    const recommendation =
      path(category, 'recommendations', 'para')
        .map((p) => p.attrs.text)
        .filter(Boolean)
        .join('\n') || undefined;
    for (const kind of ['staticflaws', 'dynamicflaws'] as const) {
      for (const flaw of path(category, 'cwe', kind, 'flaw')) {
        const id = flaw.attrs.issueid;
        if (id && seen.has(id)) continue;
        if (id) seen.add(id);
        const file = flaw.attrs.sourcefile ? `${flaw.attrs.sourcefilepath ?? ''}${flaw.attrs.sourcefile}` : undefined;
        const url = flaw.attrs.url;
        yield ctx.finding({
          tool: 'veracode',
          toolCategory: kind === 'staticflaws' ? 'sast' : 'dast',
          ruleId: flaw.attrs.categoryid ?? flaw.attrs.cweid,
          title: flaw.attrs.categoryname ?? category.attrs.categoryname ?? 'Veracode flaw',
          description: flaw.attrs.description,
          severity: severityOf(flaw.attrs.severity),
          toolSeverity: flaw.attrs.severity,
          cwes: cwes(flaw.attrs.cweid),
          mitigation: recommendation,
          filePath: file,
          startLine: line(flaw.attrs.line),
          endpoints: kind === 'dynamicflaws' && url ? [{ url, parameter: flaw.attrs.vuln_parameter }] : [],
          locator: id ? `issue:${id}` : undefined,
          toolFingerprints: id ? { issueid: id } : {},
          suppression: flawSuppression(flaw),
          tags: [kind === 'staticflaws' ? 'sast' : 'dast', flaw.attrs.module].filter((t): t is string => !!t),
          detectedAt: flaw.attrs.date_first_occurrence,
        });
      }
    }
  }
  for (const component of path(root, 'software_composition_analysis', 'vulnerable_components', 'component')) {
    const libraryId = component.attrs.library_id;
    const name =
      libraryId?.startsWith('maven:') && libraryId.split(':').length > 2
        ? libraryId.split(':')[2]
        : (component.attrs.library ?? component.attrs.file_name ?? 'unknown');
    const version = component.attrs.version;
    const filePath = path(component, 'file_paths', 'file_path')[0]?.attrs.value ?? component.attrs.file_name;
    for (const v of path(component, 'vulnerabilities', 'vulnerability')) {
      const cve = v.attrs.cve_id;
      const init: FindingInit = {
        tool: 'veracode',
        toolCategory: 'sca',
        ruleId: cve,
        title: `${name}${version ? `:${version}` : ''} | ${cve ?? 'vulnerability'}`,
        description: v.attrs.cve_summary,
        severity: severityOf(v.attrs.severity),
        toolSeverity: v.attrs.severity,
        cwes: cwes(v.attrs.cwe_id),
        vulnerabilityIds: vulnIds([cve]),
        library: { name, version },
        filePath,
        tags: ['sca'],
      };
      addCvss(init, undefined, v.attrs.cvss_score);
      yield ctx.finding(init);
    }
  }
}

function cvssVector(prefix: string, vector: unknown): string | undefined {
  const v = str(vector);
  return v && !v.startsWith('CVSS:') ? `${prefix}${v}` : v;
}

/**
 * Veracode REST API findings JSON (`findings[]`, or HAL `_embedded.findings[]`) of every scan type.
 * Findings whose status is CLOSED are fixed and skipped, as in DefectDojo.
 */
function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const d = obj(doc);
  for (const item of each(d.findings ?? obj(d._embedded).findings)) {
    const f = obj(item);
    const status = obj(f.finding_status);
    if (str(status.status)?.toUpperCase() === 'CLOSED') continue;
    const details = obj(f.finding_details);
    const scanType = str(f.scan_type)?.toUpperCase() ?? 'STATIC';
    const cwe = obj(details.cwe);
    const category = obj(details.finding_category);
    const tags = f.violates_policy === true ? ['policy-violation'] : [];
    // A mitigation or false positive counts once Veracode's reviewer approved it.
    const resolution = str(status.resolution);
    const approved =
      resolution &&
      /MITIGATED|POTENTIAL_FALSE_POSITIVE/i.test(resolution) &&
      /APPROVED/i.test(str(status.resolution_status) ?? '')
        ? resolution
        : undefined;
    const base: FindingInit = {
      tool: 'veracode',
      toolCategory: scanType === 'SCA' ? 'sca' : scanType === 'STATIC' ? 'sast' : 'dast',
      title: str(category.name) ?? str(cwe.name) ?? 'Veracode finding',
      description: htmlText(str(f.description)),
      severity: severityOf(details.severity),
      toolSeverity: str(details.severity),
      cwes: cwes(cwe.id),
      tags,
      locator: str(f.issue_id) ? `issue:${str(f.issue_id)}` : undefined,
      suppression: approved ? { state: approved.toLowerCase(), source: 'tool' } : undefined,
      detectedAt: str(status.first_found_date),
    };
    if (scanType === 'SCA') {
      const cve = obj(details.cve);
      const id = str(cve.name);
      const version = str(details.version);
      // The file name carries the version ("spring-boot-autoconfigure-2.5.14.jar"); the component is without it.
      const name =
        (version ? str(details.component_filename)?.replace(`-${version}`, '') : str(details.component_filename)) ??
        'unknown';
      base.title = str(cwe.name) ?? `${name} - ${id ?? 'vulnerability'}`;
      base.ruleId = id;
      base.vulnerabilityIds = vulnIds([id]);
      base.library = { name, version };
      base.filePath = str(obj(arr(details.component_path)[0]).path);
      base.references = [str(cve.href)].filter((u): u is string => !!u);
      base.locator = undefined;
      addCvss(base, cvssVector('CVSS:3.1/', obj(cve.cvss3).vector), obj(cve.cvss3).score);
      addCvss(base, cve.vector, cve.cvss);
    } else if (scanType === 'STATIC') {
      base.ruleId = str(category.id) ?? str(cwe.id);
      base.filePath = str(details.file_path);
      base.startLine = line(details.file_line_number);
    } else {
      const url =
        str(details.url) ??
        (str(details.hostname) ? `https://${str(details.hostname)}${str(details.path) ?? ''}` : undefined);
      base.ruleId = str(category.id) ?? str(cwe.id);
      base.endpoints = url ? [{ url, parameter: str(details.vulnerable_parameter) }] : [];
    }
    yield ctx.finding(base);
  }
}

function isVeracodeFinding(v: unknown): boolean {
  return isObj(v) && 'scan_type' in v && isObj(v.finding_details);
}

export const veracodeXml: XmlFormat = {
  id: 'veracode-xml',
  title: 'Veracode detailed report XML',
  testedWith: 'Veracode detailed report XML, from corpus samples',
  kind: 'xml',
  detect: (root) => root.name === 'detailedreport',
  parse: parseXml,
};

export const veracodeJson: JsonFormat = {
  id: 'veracode-json',
  title: 'Veracode REST API findings JSON',
  testedWith: 'Veracode findings REST API JSON, from corpus samples',
  kind: 'json',
  detect: (doc) => isObj(doc) && isArrayLikeOf(doc.findings ?? obj(doc._embedded).findings, isVeracodeFinding),
  // The API's page without findings: HAL links and paging, no `_embedded`.
  isEmptyReport: (doc) =>
    isObj(doc) &&
    ((Array.isArray(doc.findings) && doc.findings.length === 0) ||
      ('page' in doc && '_links' in doc && !('_embedded' in doc)) ||
      (Array.isArray(obj(doc._embedded).findings) && arr(obj(doc._embedded).findings).length === 0)),
  parse: parseJson,
};
