import { csvRecord } from '@bulwark/platform/csv';
import { escapeMarkdown } from '@bulwark/platform/markdown';
import { ApiClient, apiConfig } from '../api/client';
import { Issue, issueLocation } from '../api/types';
import { parseFlags } from '../args';
import { EXIT, usageError } from '../errors';

const FORMATS = ['json', 'csv', 'markdown', 'sarif'] as const;
type Format = (typeof FORMATS)[number];

const CSV_COLUMNS: (keyof Issue)[] = [
  'id',
  'severity',
  'status',
  'title',
  'tool_name',
  'rule_id',
  'cve',
  'file_path',
  'start_line',
  'lib_name',
  'lib_version',
  'cvss_v3',
  'first_detected_at',
  'last_detected_at',
  'project_code',
  'layer_id',
];

/** Markdown of a merge-request comment: counts by severity, then a table of the first issues. */
function markdown(issues: Issue[], total: number, project: string): string {
  const counts = new Map<string, number>();
  for (const i of issues) counts.set(i.severity, (counts.get(i.severity) ?? 0) + 1);
  const cell = (s: string | number | null) => escapeMarkdown(String(s ?? ''));
  const lines = [`### Bulwark: ${total} issue(s) in ${cell(project)}`, ''];
  lines.push(['critical', 'high', 'medium', 'low', 'info'].map((s) => `${s}: ${counts.get(s) ?? 0}`).join(' · '), '');
  if (issues.length) {
    lines.push('| severity | title | where | tool | status |', '|---|---|---|---|---|');
    for (const i of issues.slice(0, 50)) {
      lines.push(
        `| ${cell(i.severity)} | ${cell(i.title)} | ${cell(issueLocation(i))} | ${cell(i.tool_name)} | ${cell(i.status)} |`,
      );
    }
    if (issues.length > 50) lines.push('', `… and ${issues.length - 50} more.`);
  }
  return `${lines.join('\n')}\n`;
}

/** bulwark issues --project <code> [--severity s]… [--status id]… [--layer id] [--scan id] [--format json|csv|markdown|sarif] [--max n] */
export async function issuesCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseFlags({
    args,
    strict: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      project: { type: 'string' },
      severity: { type: 'string', multiple: true },
      status: { type: 'string', multiple: true },
      layer: { type: 'string' },
      scan: { type: 'string' },
      format: { type: 'string', default: 'json' },
      max: { type: 'string', default: '10000' },
    },
  });
  if (!values.project) throw usageError('issues needs --project <project code>');
  if (!FORMATS.includes(values.format as Format)) throw usageError(`--format must be one of ${FORMATS.join(', ')}`);
  const max = Number(values.max);
  if (!Number.isInteger(max) || max < 1) throw usageError('--max must be a positive whole number');
  const api = new ApiClient(apiConfig(values, env));

  const query = new URLSearchParams({ 'filter[project_code]': values.project, sort: '-severity' });
  for (const s of values.severity ?? []) query.append('filter[severity]', s);
  for (const s of values.status ?? []) query.append('filter[status]', s);
  if (values.layer) query.set('filter[layer]', values.layer);
  if (values.scan) query.set('filter[scan]', values.scan);
  if (values.format === 'sarif') {
    // The server's export: every matching issue, streamed, one run per tool.
    query.delete('sort');
    query.set('format', 'sarif');
    process.stdout.write(await api.text(`/api/v1/issues/export?${query.toString()}`));
    return EXIT.ok;
  }
  const issues: Issue[] = [];
  let total = 0;
  for await (const page of api.issues(query)) {
    total = page.total;
    issues.push(...page.items.slice(0, max - issues.length));
    if (issues.length >= max) break;
  }
  const format = values.format as Format;
  if (format === 'json') process.stdout.write(`${JSON.stringify(issues, null, 2)}\n`);
  else if (format === 'csv')
    process.stdout.write(
      csvRecord(CSV_COLUMNS) +
        issues.map((i) => csvRecord(CSV_COLUMNS.map((c) => (i[c] ?? null) as string | number | null))).join(''),
    );
  else process.stdout.write(markdown(issues, total, values.project));
  return EXIT.ok;
}
