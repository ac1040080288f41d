import { Finding, Suppression } from '../model';
import { arr, obj, severityOf, str } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';
import { siteUrl } from './locations';

/**
 * StackHawk (HawkScan) scan results as its webhook and `hawk` CLI write them:
 * `{service: "StackHawk", scanCompleted: {scan, findings[]}}`. One finding per plugin (StackHawk's
 * notion of a finding), its paths as endpoints with their method, as DefectDojo reads it; the
 * severity is StackHawk's word (High, Medium, Low; anything else informational). A finding whose
 * every path was triaged `FALSE_POSITIVE` is kept as a false positive, every path `RISK_ACCEPTED` as
 * accepted risk; a mixed triage leaves the finding open. The application and environment are tags.
 */

function suppressionOf(paths: Record<string, unknown>[]): Suppression | undefined {
  const states = new Set(paths.map((p) => str(p.status)?.toUpperCase() ?? ''));
  if (paths.length === 0 || states.size !== 1) return undefined;
  if (states.has('FALSE_POSITIVE')) return { state: 'false_positive', source: 'tool' };
  if (states.has('RISK_ACCEPTED')) return { state: 'risk_accepted', source: 'tool' };
  return undefined;
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const completed = obj(obj(doc).scanCompleted);
  const scan = obj(completed.scan);
  const scanUrl = str(scan.scanURL);
  const tags = [str(scan.application), str(scan.env)].filter((t): t is string => !!t);
  for (const x of each(completed.findings)) {
    const f = obj(x);
    const plugin = str(f.pluginId);
    const word = str(f.severity);
    const paths = arr(f.paths).map(obj);
    const link = str(f.findingURL) ?? (scanUrl && plugin ? `${scanUrl}/finding/${plugin}` : undefined);
    yield ctx.finding({
      tool: 'stackhawk',
      toolCategory: 'dast',
      ruleId: plugin,
      title: str(f.pluginName) ?? `StackHawk plugin ${plugin ?? ''}`.trim(),
      description: link ? `View this finding in the StackHawk platform at:\n${link}` : undefined,
      severity: severityOf(word) ?? 'info',
      toolSeverity: word,
      tags,
      references: link ? [link] : [],
      endpoints: paths
        .map((p) => ({ url: siteUrl(str(f.host), str(p.path)) ?? '', method: str(p.method) }))
        .filter((e) => e.url),
      suppression: suppressionOf(paths),
      detectedAt: str(scan.startedTimestamp),
    });
  }
}

export const stackhawk: JsonFormat = {
  id: 'stackhawk',
  title: 'StackHawk (HawkScan) scan results JSON',
  testedWith: 'HawkScan 2.1.1',
  kind: 'json',
  detect: (doc) => hasKeys(doc, 'service', 'scanCompleted') && obj(doc).service === 'StackHawk',
  parse,
};
