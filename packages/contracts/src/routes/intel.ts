import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { perm } from '../common';
import {
  INTEL_FEEDS,
  INTEL_IMPORT_MAX_BYTES,
  intelImportResult,
  intelSettingsBody,
  intelSettingsView,
  intelStatus,
  intelSyncResult,
} from '../schemas/intel';

// Exploit intelligence (FIRST EPSS, CISA KEV): served by the issues service, whose issues it enriches.
const service = 'issues';
const intel = (l: 'r' | 'w' | 'x') => perm('settings.intel', l, 'unscoped');

export const intelRoutes = [
  {
    operationId: 'getIntelSettings',
    method: 'get',
    path: '/api/v1/intel/settings',
    service,
    tag: 'Exploit intelligence',
    access: intel('r'),
    summary: 'Where the EPSS and KEV feeds are fetched from, whether on a schedule, and how often',
    response: intelSettingsView,
  },
  {
    operationId: 'updateIntelSettings',
    method: 'put',
    path: '/api/v1/intel/settings',
    service,
    tag: 'Exploit intelligence',
    access: intel('w'),
    summary: 'Change the feed settings; fields left out keep their value, and an enabled schedule is due at once',
    description:
      'The addresses must be http or https without credentials; they are reached through the outbound address policy when fetched.',
    request: { body: intelSettingsBody },
    response: intelSettingsView,
  },
  {
    operationId: 'syncIntel',
    method: 'post',
    path: '/api/v1/intel/sync',
    service,
    tag: 'Exploit intelligence',
    access: intel('x'),
    summary: 'Fetch both feeds now and enrich the open issues',
    description:
      'Answers 200 with what each feed has loaded; a feed whose fetch failed (unreachable, refused by the outbound policy, too slow, too large, malformed) keeps its last good data and names why in error (also in the error log as intel.feed_failed).',
    response: intelSyncResult,
  },
  {
    operationId: 'importIntel',
    method: 'post',
    path: '/api/v1/intel/import',
    service,
    tag: 'Exploit intelligence',
    access: intel('x'),
    summary:
      'Load a feed from a file sent as the body (air-gapped installations): the EPSS CSV (gzipped or not) or the KEV JSON',
    description: 'A malformed file is a 400 naming body with the reason, and changes nothing.',
    request: { query: z.object({ feed: z.enum(INTEL_FEEDS) }).strict() },
    upload: { maxBytes: INTEL_IMPORT_MAX_BYTES },
    response: intelImportResult,
  },
  {
    operationId: 'intelStatus',
    method: 'get',
    path: '/api/v1/intel/status',
    service,
    tag: 'Exploit intelligence',
    access: intel('r'),
    summary: 'What each feed has loaded (records, score date or catalog version), when, and the last failure',
    response: intelStatus,
  },
] as const satisfies readonly RouteSpec[];
