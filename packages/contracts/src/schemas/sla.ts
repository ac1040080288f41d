import { z } from '../zod';
import { isoDateTime, policyProjectTags, nonBlank } from '../common';

/** Where an open issue stands against its SLA (README "Issues", SLAs). */
export const SLA_STATES = ['on_track', 'due_soon', 'breached'] as const;
export type SlaState = (typeof SLA_STATES)[number];

/** 100 years: a day count beyond it is a typing error, and keeps the due date inside PostgreSQL's range. */
const MAX_DAYS = 36500;
const dayCount = z
  .number()
  .int('must be a whole number of days')
  .min(0, 'must be 0 or more')
  .max(MAX_DAYS, `must be at most ${MAX_DAYS}`)
  .nullable()
  .openapi({ description: 'Days from the first detection to the due date; null: no SLA for these issues' });

export const slaDays = z
  .object({ critical: dayCount, high: dayCount, medium: dayCount, low: dayCount, info: dayCount })
  .strict()
  .openapi('SlaDays');

export const slaPolicyBody = z
  .object({
    name: nonBlank(255),
    project_tags: policyProjectTags,
    project_codes: z.array(z.string().min(1).max(64)).max(1000).openapi({
      description: 'These projects get the policy; with no tags and no codes, every project does',
    }),
    days: slaDays,
    known_exploited_days: dayCount.openapi({
      description:
        'Days for issues in the CISA KEV catalog instead of their severity\u2019s; null: their severity\u2019s. Either way the catalog\u2019s due date applies when earlier',
    }),
  })
  .strict();

export const slaPolicyView = z
  .object({
    id: z.string(),
    name: z.string(),
    author: z.string(),
    project_tags: z.array(z.string()),
    project_codes: z.array(z.string()),
    days: slaDays,
    known_exploited_days: z.number().int().nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('SlaPolicy');
