import { Finding, FindingInit } from '../model';
import { addCvss, arr, cwes, line, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

type Obj = Record<string, unknown>;

const base = (sev: string | undefined): Pick<FindingInit, 'tool' | 'severity' | 'toolSeverity'> => ({
  tool: 'checkmarx-one',
  severity: severityOf(sev) ?? 'info',
  toolSeverity: sev,
});

/** The scans API: results[] of type sast, kics (IaC), sca and containers. */
function fromApiResult(r: Obj, ctx: ParseContext): Finding {
  const data = obj(r.data);
  const details = obj(r.vulnerabilityDetails);
  const type = str(r.type) ?? 'sast';
  const sev = str(r.severity);
  const similarity = str(r.similarityId);
  const common: FindingInit = {
    ...base(sev),
    toolCategory: type === 'kics' ? 'iac' : type === 'sast' ? 'sast' : type === 'containers' ? 'container' : 'sca',
    ruleId: str(data.queryId) ?? str(r.id),
    title: str(data.queryName)?.replace(/_/g, ' ') ?? str(r.id) ?? 'Checkmarx One result',
    description: str(r.description),
    cwes: cwes(details.cweId),
    tags: [type],
    locator: similarity ? `similarity:${similarity}` : undefined,
    toolFingerprints: similarity ? { similarityId: similarity } : {},
    suppression: /NOT_EXPLOITABLE|PROPOSED_NOT_EXPLOITABLE/.test(str(r.state) ?? '')
      ? { state: String(r.state), source: 'tool' }
      : undefined,
    detectedAt: str(r.foundAt) ?? str(r.created),
  };
  if (type === 'sast') {
    const nodes = arr(data.nodes).map(obj);
    const sink = nodes[nodes.length - 1] ?? {};
    return ctx.finding({ ...common, filePath: str(sink.fileName), startLine: line(sink.line) });
  }
  if (type === 'kics') {
    return ctx.finding({
      ...common,
      filePath: str(data.filename),
      startLine: line(data.line),
      mitigation: str(data.expectedValue),
    });
  }
  const pkg = str(data.packageIdentifier) ?? '';
  const m = /^(.*)-(\d[^-]*)$/.exec(pkg);
  const init: FindingInit = {
    ...common,
    ruleId: str(r.id) ?? common.ruleId,
    title: `${str(r.id) ?? 'vulnerability'} in ${pkg}`,
    vulnerabilityIds: vulnIds([str(r.id)]),
    library: { name: m ? m[1] : pkg || 'unknown', version: m ? m[2] : undefined },
    locator: undefined,
  };
  addCvss(init, obj(details.cvss).vector ?? obj(details.cvss).vectorString, details.cvssScore);
  return ctx.finding(init);
}

/** The GitLab-style export: vulnerabilities[] with location.file / start_line. */
function fromGitlab(v: Obj, ctx: ParseContext): Finding {
  const loc = obj(v.location);
  return ctx.finding({
    ...base(str(v.severity)),
    toolCategory: 'sast',
    ruleId: str(v.name),
    title: str(v.name)?.replace(/_/g, ' ') ?? str(v.message) ?? 'Checkmarx One result',
    description: str(v.description),
    confidence: str(v.confidence),
    cwes: cwes(
      arr(v.identifiers)
        .filter((i) => /cwe/i.test(str(obj(i).type) ?? ''))
        .map((i) => obj(i).value),
    ),
    mitigation: str(v.solution),
    filePath: str(loc.file),
    startLine: line(loc.start_line),
    endLine: line(loc.end_line),
    toolFingerprints: str(v.id) ? { id: String(v.id) } : {},
  });
}

/** The "improved" scan report: scanResults.resultsList[] of queries, plus recommendations by query. */
function* fromScanReport(doc: Obj, ctx: ParseContext): Generator<Finding> {
  const advice = new Map<string, string>();
  for (const d of each(doc.vulnerabilityDetails)) {
    const o = obj(d);
    if (str(o.vulnerabilityName) && str(o.generalRecommendations))
      advice.set(String(o.vulnerabilityName), String(o.generalRecommendations));
  }
  for (const q of each(obj(doc.scanResults).resultsList)) {
    const query = obj(q);
    const name = str(query.queryName) ?? 'query';
    for (const x of each(query.vulnerabilities)) {
      const v = obj(x);
      const similarity = str(v.similarityId);
      yield ctx.finding({
        ...base(str(v.severity)),
        toolCategory: 'sast',
        ruleId: str(query.queryId) ?? name,
        title: (str(query.queryPath) ?? name).replace(/_/g, ' '),
        description: str(query.description),
        cwes: cwes(query.cweId),
        tags: ['sast'],
        mitigation: advice.get(name),
        filePath: str(v.destinationFileName) ?? str(v.sourceFileName),
        startLine: line(v.destinationLine) ?? line(v.sourceLine),
        locator: similarity ? `similarity:${similarity}` : undefined,
        toolFingerprints: similarity ? { similarityId: similarity } : {},
        detectedAt: str(v.foundDate),
      });
    }
  }
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const o = obj(doc);
  for (const r of each(o.results)) yield fromApiResult(obj(r), ctx);
  if (hasKeys(o.scan)) for (const v of each(o.vulnerabilities)) yield fromGitlab(obj(v), ctx);
  if (hasKeys(o.scanResults, 'resultsList')) yield* fromScanReport(o, ctx);
}

export const checkmarxOne: JsonFormat = {
  id: 'checkmarx-one',
  title: 'Checkmarx One JSON (scans API results, scan report, GitLab-style export)',
  testedWith: 'Checkmarx One API results and reports, from corpus samples that carry no tool version',
  kind: 'json',
  detect: (doc) =>
    (hasKeys(doc, 'results', 'totalCount') && (hasKeys(doc, 'scanID') || hasKeys(doc, 'scanId'))) ||
    (hasKeys(doc, 'reportType', 'scanResults') && hasKeys(obj(obj(doc).scanResults), 'resultsList')) ||
    (hasKeys(doc, 'scan', 'vulnerabilities') &&
      /checkmarx|cxone/i.test(JSON.stringify(obj(obj(doc).scan).analyzer ?? obj(obj(doc).scan).scanner ?? ''))),
  parse,
};
