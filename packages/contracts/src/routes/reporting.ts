import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { bracketQuery, bulkResult, idsBody, isoDateTime, listOf, multi, pageQuery, perm } from '../common';

const service = 'reporting';
const reportsP = (l: 'r' | 'w' | 'x' | 'd') => perm('reporting.reports', l);
const byId = z.object({ id: z.uuid() });

export const REPORT_TYPES = ['summary', 'detailed', 'compliance', 'trend'] as const;
/** custom: the range filter.from to filter.to, which a report of any other period must not have. */
export const REPORT_PERIODS = ['all', 'day', 'week', 'month', 'quarter', 'year', 'custom'] as const;
export const REPORT_FORMATS = ['html', 'csv', 'json', 'pdf', 'docx'] as const;
export const REPORT_STATES = ['queued', 'running', 'ready', 'failed'] as const;

const projectCodes = z.array(z.string().min(1).max(64)).max(1000);
const RANGE_FLOOR = Date.UTC(1970, 0, 1);
/** A day (the range then covers it whole) or an instant. */
const rangeBound = z.union([z.iso.date(), isoDateTime]);
const reportFilter = z
  .object({
    period: z.enum(REPORT_PERIODS).default('all').openapi({
      description:
        'Issues first detected in this period before the report was created; all: any time; custom: from filter.from to filter.to',
    }),
    project_code: projectCodes
      .default([])
      .openapi({ description: 'Projects to report on; empty: every project the caller may see' }),
    from: rangeBound.optional().openapi({
      description:
        'Start of a custom range: an ISO 8601 date (from 00:00 UTC) or a date-time with offset, 1970 or later; with period custom or omitted',
    }),
    to: rangeBound.optional().openapi({
      description: 'End of a custom range (a date includes that whole day); default: when the report is created',
    }),
  })
  .strict()
  .superRefine((f, ctx) => {
    const hasRange = f.from !== undefined || f.to !== undefined;
    if (f.period === 'custom' && f.from === undefined)
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'is required when period is custom' });
    if (hasRange && f.period !== 'custom' && f.period !== 'all')
      ctx.addIssue({ code: 'custom', path: ['period'], message: 'must be custom (or omitted) with from or to' });
    if (f.from !== undefined && f.to !== undefined && Date.parse(f.from) > Date.parse(f.to))
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
    // Issues are never older than this; earlier years (even year 0, which PostgreSQL has no room for) are typos.
    for (const key of ['from', 'to'] as const) {
      const value = f[key];
      if (value !== undefined && Date.parse(value) < RANGE_FLOOR)
        ctx.addIssue({ code: 'custom', path: [key], message: 'must be 1970-01-01 or later' });
    }
  });

export const reportView = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(REPORT_TYPES),
    filter: z.object({
      period: z.enum(REPORT_PERIODS),
      project_code: z.array(z.string()),
      from: isoDateTime.nullable(),
      to: isoDateTime.nullable(),
    }),
    state: z
      .enum(REPORT_STATES)
      .openapi({ description: 'queued, running (see progress), ready (downloadable) or failed (see error)' }),
    progress: z.number().int().min(0).max(100),
    error: z.string().nullable(),
    author: z.string(),
    created_at: isoDateTime,
    started_at: isoDateTime.nullable(),
    finished_at: isoDateTime.nullable(),
    formats: z.array(z.enum(REPORT_FORMATS)).openapi({ description: 'Formats it can be downloaded in (once ready)' }),
  })
  .openapi('Report');

const formatQuery = z
  .enum(REPORT_FORMATS)
  .openapi({ description: 'html, csv (the listed open issues), json (the whole report), pdf or docx' });

export const reportingRoutes = [
  {
    // Before /report/{id}/download: the literal path must win over the parameter.
    operationId: 'downloadSummaryReport',
    method: 'get',
    path: '/api/v1/report/summary/download',
    service,
    tag: 'Reports',
    access: reportsP('x'),
    summary: 'Earlier interface: a summary report generated on the spot and downloaded',
    description:
      'filter[created_at_start] and filter[created_at_end] bound the issues\u2019 first detection. The report is not stored.',
    request: {
      query: bracketQuery(
        z
          .object({
            format: formatQuery.default('pdf'),
            'filter[project_code]': multi(z.string().min(1).max(64)),
            'filter[created_at_start]': isoDateTime.optional(),
            'filter[created_at_end]': isoDateTime.optional(),
          })
          .strict(),
      ),
    },
  },
  {
    operationId: 'createReport',
    method: 'post',
    path: '/api/v1/report',
    service,
    tag: 'Reports',
    access: reportsP('x'),
    summary: 'Create a report; it is generated asynchronously (state queued, running, then ready or failed)',
    description:
      'type summary: issue counts by severity, status, project and tool, charts of severities, top CWEs and libraries, and the open issues, most severe first (at most REPORTING_TOP_ISSUES). detailed: the summary plus every open issue (at most REPORTING_TOP_ISSUES) with its description, location, remediation and history. compliance: issues by OWASP Top 10 2021 and CWE Top 25 (2024) category, mapped from their CWEs. trend: issues opened, fixed and open per day, week or month of the period, and the mean time to fix by severity. Issues linked as duplicates are left out. The report is frozen when generated: every format shows the same data.',
    request: {
      body: z
        .object({
          name: z.string().trim().min(1).max(255),
          type: z.enum(REPORT_TYPES),
          filter: reportFilter.default({ period: 'all', project_code: [], from: undefined, to: undefined }),
        })
        .strict(),
    },
    response: reportView,
  },
  {
    operationId: 'listReports',
    method: 'get',
    path: '/api/v1/reports',
    service,
    tag: 'Reports',
    access: reportsP('r'),
    summary: 'Reports the caller may see (those whose projects are all within the caller\u2019s), newest first',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[name]': z.string().min(1).max(255).optional(),
            'filter[state]': z.enum(REPORT_STATES).optional(),
            'filter[type]': z.enum(REPORT_TYPES).optional(),
          })
          .strict(),
      ),
    },
    response: listOf(reportView, 'ReportList'),
  },
  {
    operationId: 'getReport',
    method: 'get',
    path: '/api/v1/report/{id}',
    service,
    tag: 'Reports',
    access: reportsP('r'),
    summary: 'One report: state, progress, error',
    request: { params: byId },
    response: reportView,
  },
  {
    operationId: 'deleteReportRemoved',
    method: 'delete',
    path: '/api/v1/report/{id}',
    service,
    tag: 'Reports',
    access: reportsP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/reports with { "ids": [...] }',
  },
  {
    operationId: 'updateReport',
    method: 'put',
    path: '/api/v1/report/{id}',
    service,
    tag: 'Reports',
    access: reportsP('w'),
    summary: 'Rename a report (its content stays as generated)',
    request: {
      params: byId,
      body: z.object({ data: z.object({ name: z.string().trim().min(1).max(255) }).strict() }).strict(),
    },
    response: reportView,
  },
  {
    operationId: 'deleteReports',
    method: 'delete',
    path: '/api/v1/reports',
    service,
    tag: 'Reports',
    access: reportsP('d'),
    summary: 'Delete reports by id',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'downloadReport',
    method: 'get',
    path: '/api/v1/report/{id}/download',
    service,
    tag: 'Reports',
    access: reportsP('r'),
    summary: 'The report file in a format; 409 until the report is ready',
    request: { params: byId, query: z.object({ format: formatQuery }).strict() },
  },
] as const satisfies readonly RouteSpec[];
