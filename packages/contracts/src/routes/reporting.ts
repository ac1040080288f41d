import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { byId } from '../common';
import { bracketQuery, bulkResult, idsBody, isoDateTime, listOf, multi, pageQuery, perm } from '../common';
import { REPORT_TYPES, REPORT_STATES, reportFilter, reportFiles, reportView, formatQuery } from '../schemas/reporting';

const service = 'reporting';
const reportsP = (l: 'r' | 'w' | 'x' | 'd') => perm('reporting.reports', l, 'project-set');

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
      'filter[created_at_start] and filter[created_at_end] bound the issues\u2019 first detection. The report is not stored. ' +
      'A filter[project_code] that does not exist or that the caller cannot see answers 404.',
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
    files: reportFiles,
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
    files: reportFiles,
  },
] as const satisfies readonly RouteSpec[];
