import { InputError } from '../errors';
import { isArrayLike } from '../io/json';
import { Finding, FindingInit, SEVERITIES, TOOL_CATEGORIES, ToolCategory } from '../model';
import { addCvss, arr, epssOf, cwes, isObj, line, num, obj, severityOf, str, vulnIds } from '../normalize';
import { categoryOfTool } from './category';
import { CsvFormat, each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * Bulwark's generic format, for tools without a parser of their own. Field names follow DefectDojo's
 * "Generic Findings Import", so existing exports import unchanged. See the package README.
 */
const REQUIRED = ['description', 'severity', 'title'];

function endpointOf(e: unknown): { url: string } | undefined {
  if (typeof e === 'string') return e.trim() ? { url: e.trim() } : undefined;
  const o = obj(e);
  if (str(o.url)) return { url: String(o.url) };
  if (!str(o.host)) return undefined;
  const port = str(o.port) ? `:${String(o.port)}` : '';
  return {
    url: `${str(o.protocol) ?? 'https'}://${String(o.host)}${port}/${(str(o.path) ?? '').replace(/^\//, '')}${str(o.query) ? `?${String(o.query)}` : ''}`,
  };
}

function toFinding(raw: Record<string, unknown>, index: number, ctx: ParseContext, defaultTool: string): Finding {
  const missing = REQUIRED.filter((k) => !str(raw[k]));
  if (missing.length) throw new InputError(`finding #${index + 1}: required fields are missing: ${missing.join(', ')}`);
  const sevWord = String(raw.severity);
  const severity = severityOf(sevWord);
  if (!severity)
    throw new InputError(`finding #${index + 1}: severity "${sevWord}" is not one of ${SEVERITIES.join(', ')}`);
  const tool = str(raw.tool) ?? defaultTool;
  const category = str(raw.tool_category)?.toLowerCase() as ToolCategory | undefined;
  const component = str(raw.component_name);
  const init: FindingInit = {
    tool,
    toolCategory: category && TOOL_CATEGORIES.includes(category) ? category : component ? 'sca' : categoryOfTool(tool),
    ruleId: str(raw.vuln_id_from_tool) ?? str(raw.rule_id),
    title: String(raw.title),
    description: String(raw.description),
    severity,
    toolSeverity: sevWord,
    tags: arr(raw.tags).map(String),
    cwes: cwes(raw.cwe, raw.cwes),
    vulnerabilityIds: vulnIds([raw.cve, ...arr(raw.vulnerability_ids).map((v) => (isObj(v) ? v.vulnerability_id : v))]),
    references: (str(raw.references) ?? '').split(/\s*\n\s*/).filter(Boolean),
    mitigation: str(raw.mitigation),
    library: component
      ? {
          name: component,
          version: str(raw.component_version),
          fixedVersion: str(raw.fix_version),
          purl: str(raw.purl),
        }
      : undefined,
    filePath: str(raw.file_path),
    startLine: line(raw.line),
    endLine: line(raw.end_line) ?? line(raw.line),
    snippet: str(raw.snippet),
    endpoints: [...arr(raw.endpoints), ...(str(raw.url) ? [raw.url] : [])]
      .map(endpointOf)
      .filter((e): e is { url: string } => !!e),
    toolFingerprints: str(raw.unique_id_from_tool) ? { unique_id_from_tool: String(raw.unique_id_from_tool) } : {},
    suppression:
      raw.false_p === true
        ? { state: 'false_positive', source: 'tool' }
        : raw.is_mitigated === true
          ? { state: 'mitigated', source: 'tool' }
          : undefined,
    detectedAt: str(raw.date),
  };
  addCvss(init, raw.cvssv4);
  addCvss(init, raw.cvssv3, raw.cvssv3_score);
  addCvss(init, raw.cvssv2);
  if (init.cvssScore === undefined && num(raw.cvss_score) !== undefined) init.cvssScore = num(raw.cvss_score);
  const epss = epssOf(raw.epss_score, raw.epss_percentile);
  if (epss) init.epss = epss;
  if (raw.known_exploited === true) init.knownExploited = true;
  return ctx.finding(init);
}

function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const tool = str(obj(doc).tool) ?? 'generic';
  let i = 0;
  for (const f of each(obj(doc).findings)) yield toFinding(obj(f), i++, ctx, tool);
}

export const genericJson: JsonFormat = {
  id: 'generic-json',
  title: 'Bulwark generic findings JSON ({"findings": [...]}, DefectDojo-compatible fields)',
  testedWith: 'Bulwark generic findings JSON; DefectDojo Generic Findings Import fields',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'findings') &&
    isArrayLike(obj(doc).findings) &&
    Object.keys(obj(doc)).every((k) => ['findings', 'tool', 'name', 'type', 'version'].includes(k)),
  parse: parseJson,
};

/** CSV columns, matched without regard to case, spaces or underscores. */
const COLUMNS: Record<string, string> = {
  title: 'title',
  severity: 'severity',
  description: 'description',
  date: 'date',
  cweid: 'cwe',
  cwe: 'cwe',
  url: 'url',
  mitigation: 'mitigation',
  impact: 'impact',
  references: 'references',
  cve: 'cve',
  filepath: 'file_path',
  line: 'line',
  componentname: 'component_name',
  componentversion: 'component_version',
  fixversion: 'fix_version',
  tool: 'tool',
  vulnidfromtool: 'vuln_id_from_tool',
  uniqueidfromtool: 'unique_id_from_tool',
  cvssv3: 'cvssv3',
  falsepositive: 'false_p',
};

const key = (h: string): string => h.toLowerCase().replace(/[\s_-]/g, '');

function* parseCsv(rows: Record<string, string>[], ctx: ParseContext): Generator<Finding> {
  let i = 0;
  for (const row of rows) {
    const raw: Record<string, unknown> = {};
    for (const [h, v] of Object.entries(row)) {
      const field = COLUMNS[key(h)];
      if (field && v.trim() !== '') raw[field] = field === 'false_p' ? /^true$/i.test(v.trim()) : v.trim();
    }
    yield toFinding(raw, i++, ctx, 'generic');
  }
}

export const genericCsv: CsvFormat = {
  id: 'generic-csv',
  title: 'Bulwark generic findings CSV (Title, Severity, Description, ... columns)',
  testedWith: 'Bulwark generic findings CSV; DefectDojo Generic Findings Import columns',
  kind: 'csv',
  detect: (header) => ['title', 'severity', 'description'].every((c) => header.some((h) => key(h) === c)),
  parse: parseCsv,
};
