import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ISSUE_SEVERITIES, ISSUE_SORTS, type QualityGateVerdict, scanResultView } from '@bulwark/contracts';
import { ApiCallError, BulwarkApi } from './api-client';
import { boundedDeep, LIMITS, toolResult, bounded } from './untrusted';
import {
  commentItem,
  CommentView,
  HistoryEntryView,
  historyItem,
  issueDetail,
  issueItem,
  IssueView,
  verdictExplanation,
} from './views';

/** The built-in statuses a person still has to act on: New, Confirmed, In progress, Reopen (README "Issues"). */
const OPEN_STATUSES = [1, 2, 3, 8];

interface Page<T> {
  items: T[];
  total: number;
}

const projectCode = z.string().min(1).max(64).describe('The project\u2019s code');
const issueId = z.uuid().describe('The issue\u2019s id');
const scanResultId = z.uuid().describe('The scan result\u2019s id');
const limit = (byDefault: number) =>
  z.number().int().min(1).max(LIMITS.items).default(byDefault).describe(`How many issues, 1 to ${LIMITS.items}`);
const SORTS = ISSUE_SORTS.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** The read tools: each calls the API with the caller's token, so it sees what the caller sees. */
export function registerReadTools(server: McpServer, api: BulwarkApi): void {
  server.registerTool(
    'search_issues',
    {
      title: 'Search issues',
      description:
        'Issues the caller may see, filtered like GET /api/v1/issues: project, severity, status ids (1 New, 2 Confirmed, 3 In progress, 4 Fixed, 5 False positive, 6 Risk accepted, 7 Suppressed, 8 Reopen), CVE, assignee (me, none or a name); sorted (default -risk_score, highest risk first).',
      inputSchema: {
        project_code: projectCode.optional(),
        severity: z.array(z.enum(ISSUE_SEVERITIES)).max(ISSUE_SEVERITIES.length).optional(),
        status_id: z.array(z.number().int().min(1).max(1000)).max(20).optional(),
        cve: z.string().min(1).max(64).optional(),
        assignee: z.string().min(1).max(255).optional(),
        sort: z.enum(SORTS).default('-risk_score'),
        limit: limit(20),
        page: z.number().int().min(1).max(1000).default(1),
      },
      annotations: READ_ONLY,
    },
    async (a) => {
      const page = await api.get<Page<IssueView>>('/api/v1/issues', {
        'filter[project_code]': a.project_code,
        'filter[severity]': a.severity,
        'filter[status]': a.status_id,
        'filter[cve]': a.cve,
        'filter[assignee]': a.assignee,
        sort: a.sort,
        limit: a.limit,
        page: a.page,
      });
      return toolResult(`${page.total} issues match; ${page.items.length} shown (page ${a.page}).`, {
        total: page.total,
        page: a.page,
        issues: page.items.map(issueItem),
      });
    },
  );

  server.registerTool(
    'get_issue',
    {
      title: 'Get an issue',
      description: 'One issue with its description, its history (newest first) and its comments.',
      inputSchema: { issue_id: issueId },
      annotations: READ_ONLY,
    },
    async ({ issue_id }) => {
      const id = encodeURIComponent(issue_id);
      const [issue, history, comments] = await Promise.all([
        api.get<IssueView>(`/api/v1/issue/${id}`),
        api.get<Page<HistoryEntryView>>(`/api/v1/issue/${id}/history`, { limit: LIMITS.items }),
        api.get<Page<CommentView>>(`/api/v1/issue/${id}/comments`, { limit: LIMITS.items }),
      ]);
      return toolResult(
        `Issue ${issue.id}: ${issue.severity}, ${issue.status}, risk ${issue.risk_score}; ${history.total} history entries, ${comments.total} comments.`,
        {
          issue: issueDetail(issue),
          history: { total: history.total, items: history.items.map(historyItem) },
          comments: { total: comments.total, items: comments.items.map(commentItem) },
        },
      );
    },
  );

  server.registerTool(
    'project_summary',
    {
      title: 'Project summary',
      description:
        'A project\u2019s open issues by severity, new / fixed / open per week (the trend), and the latest gate verdict of each of its layers.',
      inputSchema: { project_code: projectCode, weeks: z.number().int().min(1).max(52).default(8) },
      annotations: READ_ONLY,
    },
    async ({ project_code, weeks }) => {
      const filter = { 'filter[project_code]': project_code };
      const [bySeverity, trend, layers] = await Promise.all([
        api.get<{ groups: { severity?: string; count: number }[]; total: number }>('/api/v1/issues/count/grouped', {
          ...filter,
          'filter[status]': OPEN_STATUSES,
          group_by: 'severity',
        }),
        api.get<{ groups: WeekCounts[] }>('/api/v1/issues/count/grouped', { ...filter, group_by: 'week', weeks }),
        api.get<Page<{ id: string; name: string }>>('/api/v1/layers', { ...filter, limit: LIMITS.items }),
      ]);
      const gates = await Promise.all(layers.items.map((l) => layerVerdict(api, l)));
      return toolResult(
        `Project ${project_code}: ${bySeverity.total} open issues; ${layers.total} layers (${gates.filter((g) => g.verdict === 'failed').length} failing their gate).`,
        {
          project_code,
          open_by_severity: Object.fromEntries(bySeverity.groups.map((g) => [g.severity, g.count])),
          open_total: bySeverity.total,
          trend: trend.groups.map((w) => ({
            week_start: w.week_start,
            week_end: w.week_end,
            new: w.new,
            fixed: w.fixed,
            open: w.open,
          })),
          layers: gates,
        },
      );
    },
  );

  server.registerTool(
    'scan_result',
    {
      title: 'Scan result and comparison',
      description:
        'A scan result: its state, finding counts by severity, its gate verdict, what is new, unchanged and fixed compared with the scan before it, and its riskiest issues.',
      inputSchema: { scan_result_id: scanResultId, top: limit(10) },
      annotations: READ_ONLY,
    },
    async ({ scan_result_id, top }) => {
      const id = encodeURIComponent(scan_result_id);
      const scan = await api.get<ScanView>(`/api/v1/scan-result/${id}`);
      const [comparison, issues] = await Promise.all([
        scan.state === 'completed' ? api.get<Record<string, unknown>>(`/api/v1/scan-result/${id}/stats/issues`) : null,
        api.get<Page<IssueView>>('/api/v1/issues', { 'filter[scan]': scan_result_id, sort: '-risk_score', limit: top }),
      ]);
      return toolResult(
        `Scan ${scan.id} of project ${scan.project_code}: ${scan.state}, ${scan.findings_count ?? 0} findings, gate ${scan.quality_gate?.status ?? 'not evaluated'}.`,
        {
          scan: {
            id: scan.id,
            project_code: scan.project_code,
            layer_id: scan.layer_id,
            check_id: scan.check_id,
            kind: scan.kind,
            state: scan.state,
            findings_count: scan.findings_count,
            severity_counts: scan.severity_counts,
            created_at: scan.created_at,
            untrusted: { error: bounded(scan.error, LIMITS.longText) },
          },
          comparison: comparison && boundedDeep(comparison),
          quality_gate: scan.quality_gate && verdictExplanation(scan.quality_gate),
          top_issues: { total: issues.total, items: issues.items.map(issueItem) },
        },
      );
    },
  );

  server.registerTool(
    'explain_gate',
    {
      title: 'Explain a gate verdict',
      description:
        'Why a scan passed or failed its quality gates: each condition, what was measured against its threshold, and which failed. Give scan_result_id, or layer_id for the layer\u2019s latest verdict.',
      inputSchema: { scan_result_id: scanResultId.optional(), layer_id: z.uuid().optional() },
      annotations: READ_ONLY,
    },
    async ({ scan_result_id, layer_id }) => {
      if ((scan_result_id === undefined) === (layer_id === undefined))
        throw new Error('Give exactly one of scan_result_id and layer_id');
      const verdict = scan_result_id
        ? (await api.get<ScanView>(`/api/v1/scan-result/${encodeURIComponent(scan_result_id)}`)).quality_gate
        : (await api.get<LayerGateState>(`/api/v1/quality-gate/layer/${encodeURIComponent(layer_id ?? '')}`))
            .last_verdict;
      if (!verdict) return toolResult('No gate verdict yet: no gate was evaluated for it.', { verdict: null });
      const explained = verdictExplanation(verdict);
      return toolResult(
        `Gate ${verdict.status}${verdict.locked ? ' (locked)' : ''}: ${explained.failed_conditions.length} of ${explained.conditions.length} conditions fail.`,
        {
          scan_result_id: verdict.scan_result_id,
          layer_id: verdict.layer_id,
          evaluated_at: verdict.evaluated_at,
          ...explained,
        },
      );
    },
  );

  server.registerTool(
    'fix_first',
    {
      title: 'Fix first',
      description:
        'The open issues (New, Confirmed, In progress, Reopen) with the highest risk score first: what to fix first, in a project or in every project the caller sees.',
      inputSchema: { project_code: projectCode.optional(), limit: limit(10) },
      annotations: READ_ONLY,
    },
    async (a) => {
      const page = await api.get<Page<IssueView>>('/api/v1/issues', {
        'filter[project_code]': a.project_code,
        'filter[status]': OPEN_STATUSES,
        sort: '-risk_score',
        limit: a.limit,
      });
      return toolResult(`${page.total} open issues; the ${page.items.length} riskiest first.`, {
        total: page.total,
        issues: page.items.map(issueItem),
      });
    },
  );
}

type ScanView = z.output<typeof scanResultView>;

interface WeekCounts {
  week_start: string;
  week_end: string;
  new: number;
  fixed: number;
  open: number;
}

interface LayerGateState {
  last_scan_result_id: string | null;
  last_verdict: QualityGateVerdict | null;
}

/** A layer's latest verdict; a caller without the gates' permission sees why instead. */
async function layerVerdict(api: BulwarkApi, layer: { id: string; name: string }) {
  const base = { layer_id: layer.id, untrusted: { name: bounded(layer.name) } };
  try {
    const state = await api.get<LayerGateState>(`/api/v1/quality-gate/layer/${encodeURIComponent(layer.id)}`);
    return {
      ...base,
      verdict: state.last_verdict?.status ?? null,
      locked: state.last_verdict?.locked ?? false,
      last_scan_result_id: state.last_scan_result_id,
      failed_conditions: state.last_verdict?.conditions.filter((c) => !c.passed).length ?? 0,
    };
  } catch (err) {
    if (err instanceof ApiCallError) return { ...base, verdict: null, error: err.message };
    throw err;
  }
}
