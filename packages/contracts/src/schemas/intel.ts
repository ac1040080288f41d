import { z } from '../zod';
import { isoDateTime, webUrl } from '../common';

export const INTEL_FEEDS = ['epss', 'kev'] as const;

/** The public addresses of the two feeds, the settings' defaults. */
export const DEFAULT_EPSS_URL = 'https://epss.cyentia.com/epss_scores-current.csv.gz';
export const DEFAULT_KEV_URL = 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json';

/** The largest feed file an import takes (the EPSS file is about 2 MB gzipped, KEV about 1.5 MB). */
export const INTEL_IMPORT_MAX_BYTES = 64 << 20;

const feedUrl = webUrl()
  .max(2048)
  .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'must not carry credentials');

export const intelSettingsBody = z
  .object({
    enabled: z.boolean().optional().openapi({ description: 'Fetch the feeds on the schedule (default false)' }),
    epss_url: feedUrl.optional().openapi({ description: 'The EPSS daily CSV (gzipped or not), http or https' }),
    kev_url: feedUrl.optional().openapi({ description: 'The CISA KEV catalog (JSON), http or https' }),
    interval_hours: z
      .number()
      .int('must be a whole number of hours')
      .min(1, 'must be at least 1')
      .max(720, 'must be at most 720')
      .optional(),
  })
  .strict()
  .openapi('IntelSettingsChange');

export const intelSettingsView = z
  .object({
    enabled: z.boolean(),
    epss_url: z.string(),
    kev_url: z.string(),
    interval_hours: z.number().int(),
    next_run_at: isoDateTime
      .nullable()
      .openapi({ description: 'When the next scheduled fetch is due (null: at the next look, when enabled)' }),
    updated_at: isoDateTime,
  })
  .openapi('IntelSettings');

export const intelSyncResult = z
  .object({
    epss: z
      .object({
        records: z.number().int(),
        score_date: z.string().nullable(),
        error: z.string().nullable().openapi({ description: 'Why this fetch failed; the data loaded before stays' }),
      })
      .openapi('IntelEpssOutcome'),
    kev: z
      .object({
        records: z.number().int(),
        catalog_version: z.string().nullable(),
        error: z.string().nullable().openapi({ description: 'Why this fetch failed; the data loaded before stays' }),
      })
      .openapi('IntelKevOutcome'),
  })
  .openapi('IntelSyncResult');

export const intelImportResult = z
  .object({ feed: z.enum(INTEL_FEEDS), records: z.number().int(), version: z.string() })
  .openapi('IntelImportResult');

export const intelFeedState = z
  .object({
    feed: z.enum(INTEL_FEEDS),
    records: z.number().int(),
    version: z.string().nullable().openapi({ description: 'EPSS: the score date; KEV: the catalog version' }),
    model_version: z.string().nullable().openapi({ description: 'EPSS model version' }),
    origin: z.enum(['fetch', 'import']).nullable(),
    loaded_at: isoDateTime.nullable(),
    attempted_at: isoDateTime.nullable(),
    error: z.string().nullable().openapi({ description: 'Why the last attempt failed (null: it loaded)' }),
  })
  .openapi('IntelFeedState');

export const intelStatus = z
  .object({ settings: intelSettingsView, feeds: z.array(intelFeedState) })
  .openapi('IntelStatus');
