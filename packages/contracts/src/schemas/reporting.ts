import { z } from '../zod';
import { isoDateTime } from '../common';

export const REPORT_TYPES = ['summary', 'detailed', 'compliance', 'trend'] as const;

/** custom: the range filter.from to filter.to, which a report of any other period must not have. */
export const REPORT_PERIODS = ['all', 'day', 'week', 'month', 'quarter', 'year', 'custom'] as const;

export const REPORT_FORMATS = ['html', 'csv', 'json', 'pdf', 'docx'] as const;

export const REPORT_STATES = ['queued', 'running', 'ready', 'failed'] as const;

export const projectCodes = z.array(z.string().min(1).max(64)).max(1000);

export const RANGE_FLOOR = Date.UTC(1970, 0, 1);

/** A day (the range then covers it whole) or an instant. */
export const rangeBound = z.union([z.iso.date(), isoDateTime]);

export const reportFilter = z
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

export const formatQuery = z
  .enum(REPORT_FORMATS)
  .openapi({ description: 'html, csv (the listed open issues), json (the whole report), pdf or docx' });
