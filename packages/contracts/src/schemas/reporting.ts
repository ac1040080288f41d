import { z } from '../zod';
import { isoDateTime } from '../common';
import { FieldRule, withFieldRules } from '../field-rules';
import { topIssueJson } from '../grpc-json';
import { ISSUE_SEVERITIES } from './issues';

export const REPORT_TYPES = ['summary', 'detailed', 'compliance', 'trend'] as const;

/** custom: the range filter.from to filter.to, which a report of any other period must not have. */
export const REPORT_PERIODS = ['all', 'day', 'week', 'month', 'quarter', 'year', 'custom'] as const;

export const REPORT_FORMATS = ['html', 'csv', 'json', 'pdf', 'docx'] as const;

export const REPORT_STATES = ['queued', 'running', 'ready', 'failed'] as const;

export const projectCodes = z.array(z.string().min(1).max(64)).max(1000);

export const RANGE_FLOOR = Date.UTC(1970, 0, 1);

/**
 * A year the range floor lets through whatever the offset: 1970 from its second day on (an offset can
 * put an instant of 1970-01-01 before the floor), then any later year. Stated in the document; the
 * check below compares the instant itself.
 */
const FROM_THE_FLOOR =
  '^(?:(?:197[1-9]|19[89]\\d|[2-9]\\d{3})-|1970-(?:0[2-9]|1[0-2])-|1970-01-(?:0[2-9]|[12]\\d|3[01]))';

/** A day (the range then covers it whole) or an instant. */
export const rangeBound = z.union([z.iso.date(), isoDateTime]).openapi({ pattern: FROM_THE_FLOOR });

/** A custom period needs its start; a period other than custom or all (the default) takes no range. */
const rangeOfPeriod: FieldRule = {
  problem: (f) => {
    if (f.period === 'custom')
      return f.from === undefined ? { field: 'from', message: 'is required when period is custom' } : undefined;
    return (f.from !== undefined || f.to !== undefined) && f.period !== 'all'
      ? { field: 'period', message: 'must be custom (or omitted) with from or to' }
      : undefined;
  },
  schema: {
    if: { properties: { period: { const: 'custom' } }, required: ['period'] },
    then: { properties: { from: {} }, required: ['from'] },
    else: {
      if: { properties: { period: { not: { const: 'all' } } }, required: ['period'] },
      then: { properties: { from: false, to: false } },
    },
  },
};

export const reportFilter = withFieldRules(
  z
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
    .strict(),
  [rangeOfPeriod],
).superRefine((f, ctx) => {
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

export const formatQuery = z
  .enum(REPORT_FORMATS)
  .openapi({ description: 'html, csv (the listed open issues), json (the whole report), pdf or docx' });

const severityCounts = z
  .object(Object.fromEntries(ISSUE_SEVERITIES.map((s) => [s, z.number().int()])))
  .openapi('SeverityCounts');

const complianceCategory = z
  .object({
    id: z.string(),
    name: z.string(),
    cwes: z.array(z.number().int()).openapi({ description: 'CWEs of the reported issues that fall in this category' }),
    total: z.number().int(),
    open: z.number().int(),
    open_by_severity: severityCounts,
  })
  .openapi('ReportComplianceCategory');

/** The JSON download of a report: the snapshot every format renders, as stored when it was generated. */
export const reportDocument = z
  .object({
    report: z.object({
      id: z.string(),
      name: z.string(),
      type: z.enum(REPORT_TYPES).openapi({ description: 'Which of the optional sections the document has' }),
      author: z.string(),
      created_at: isoDateTime,
      generated_at: isoDateTime,
      period: z.enum(REPORT_PERIODS),
      from: isoDateTime.nullable().openapi({ description: 'Start of the period; null for all' }),
      to: isoDateTime,
      project_codes: z.array(z.string()).openapi({ description: 'Empty: every project the author may see' }),
    }),
    totals: z.object({
      issues: z.number().int(),
      open: z.number().int(),
      by_severity: severityCounts,
      by_status: z.array(z.object({ status_id: z.number().int(), name: z.string(), count: z.number().int() })),
    }),
    projects: z.array(
      z.object({
        project_code: z.string(),
        total: z.number().int(),
        open: z.number().int(),
        open_by_severity: severityCounts,
      }),
    ),
    tools: z.array(
      z.object({ tool_name: z.string(), category: z.string(), total: z.number().int(), open: z.number().int() }),
    ),
    top_issues: z
      .array(topIssueJson.openapi('ReportIssue'))
      .openapi({ description: 'Open issues, most severe first, at most top_issues_limit' }),
    top_issues_limit: z.number().int(),
    details: z
      .record(
        z.string(),
        z.object({
          description: z.string().nullable(),
          remediation: z.string(),
          history: z.array(
            z.object({
              at: z.string().openapi({ description: 'ISO 8601 UTC' }),
              actor: z.string(),
              field: z.string(),
              old_value: z.string().nullable(),
              new_value: z.string().nullable(),
              comment: z.string().nullable(),
            }),
          ),
        }),
      )
      .optional()
      .openapi({ description: 'detailed: the listed issues\u2019 description, remediation and history, by issue id' }),
    compliance: z
      .object({
        owasp_top10_2021: z.array(complianceCategory),
        cwe_top25_2024: z.array(complianceCategory),
        unmapped: z.number().int(),
        without_cwe: z.number().int(),
      })
      .optional()
      .openapi({ description: 'compliance: issues by OWASP Top 10 2021 and CWE Top 25 (2024) category' }),
    trend: z
      .object({
        interval: z.enum(['day', 'week', 'month']),
        points: z.array(
          z.object({
            start: isoDateTime,
            end: isoDateTime,
            opened: z.number().int(),
            fixed: z.number().int(),
            open: z.number().int(),
          }),
        ),
        fix_times: z.array(
          z.object({ severity: z.enum(ISSUE_SEVERITIES), fixed: z.number().int(), mean_days: z.number().nullable() }),
        ),
      })
      .optional()
      .openapi({ description: 'trend: issues opened, fixed and open per interval, and the mean time to fix' }),
  })
  .openapi('ReportDocument');

/** What a report download answers, by format. */
export const reportFiles = {
  'application/json': reportDocument,
  'text/csv': 'text',
  'text/html': 'text',
  'application/pdf': 'binary',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'binary',
} as const;
