import { FORMATS } from '@bulwark/findings';
import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import {
  bracketQuery,
  bulkResult,
  idsBody,
  isoDateTime,
  listOf,
  pageQuery,
  perm,
  queryBool,
  queryInt4,
} from '../common';
import { DRY_RUN_EXAMPLES, dryRunResponse } from '../schemas/dry-run';
import {
  checks,
  dependencies,
  results,
  UPLOAD_MAX_BYTES,
  checkCreateBody,
  checkUpdateBody,
  scanStates,
  scanResultView,
  checkView,
  checkHistory,
  byCheck,
  byGroup,
  byLayer,
  byResult,
  breakdown,
  scanResultComparison,
  comparisonBody,
  runResponse,
  sbomView,
  dependencyView,
  reportFormats,
} from '../schemas/scanning';

const service = 'scanning';

const scanRoutes = [
  {
    operationId: 'createCheck',
    method: 'post',
    path: '/api/v1/check',
    service,
    tag: 'Checks',
    access: checks('w'),
    summary: 'Create a check; more than one tag creates a group of checks, one per tag',
    description:
      'The tool and source must be usable in the layer\u2019s project (access types), and the project not archived (409). check_group_id is not a field of creation (400): group membership changes only through PUT /check/{check_id}.',
    request: { body: checkCreateBody },
    response: checkView,
  },
  {
    operationId: 'listChecks',
    method: 'get',
    path: '/api/v1/checks',
    service,
    tag: 'Checks',
    access: checks('r'),
    summary: 'List checks of the caller\u2019s projects',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[layer_id]': z.uuid().optional(),
            'filter[project_code]': z.string().max(64).optional(),
            'filter[group_id]': z.uuid().optional(),
          })
          .strict(),
      ),
    },
    response: listOf(checkView, 'CheckList'),
  },
  {
    operationId: 'getCheck',
    method: 'get',
    path: '/api/v1/check/{check_id}',
    service,
    tag: 'Checks',
    access: checks('r'),
    summary: 'A check with its group (grouped_checks) and last scan',
    request: { params: byCheck },
    response: checkView,
  },
  {
    operationId: 'updateCheck',
    method: 'put',
    path: '/api/v1/check/{check_id}',
    service,
    tag: 'Checks',
    access: checks('w'),
    summary: 'Update a check and, through grouped_checks, its group (rules 4 to 9 of the guide)',
    description:
      'Without grouped_checks only this check changes. With grouped_checks and no group: more than one element creates a group this check joins; one or none changes only this check. With a group: every listed check gets the common parameters and its own tag, elements without check_id become new checks, group checks not listed leave the group; a group left with fewer than two checks is dissolved.',
    request: { params: byCheck, body: checkUpdateBody },
    response: checkView,
  },
  {
    operationId: 'deleteChecks',
    method: 'delete',
    path: '/api/v1/checks',
    service,
    tag: 'Checks',
    access: checks('d'),
    summary: 'Delete checks by id (a check with a scan in flight: conflict)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'deleteCheckGroup',
    method: 'delete',
    path: '/api/v1/check-group/{group_id}',
    service,
    tag: 'Checks',
    access: checks('d'),
    summary: 'Delete a check group and all its checks',
    request: { params: byGroup },
    response: z.object({ group_id: z.string(), deleted_check_ids: z.array(z.string()) }).openapi('CheckGroupDeleted'),
  },
  {
    operationId: 'removedCreateCheckGroup',
    method: 'post',
    path: '/api/v1/check-group',
    service,
    tag: 'Checks',
    access: checks('w'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: create a group with POST /api/v1/check and several tags',
  },
  {
    operationId: 'removedGetCheckGroup',
    method: 'get',
    path: '/api/v1/check-group/{group_id}',
    service,
    tag: 'Checks',
    access: checks('r'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: GET /api/v1/check/{check_id} lists grouped_checks',
  },
  {
    operationId: 'removedUpdateCheckGroup',
    method: 'put',
    path: '/api/v1/checks-group/{group_id}',
    service,
    tag: 'Checks',
    access: checks('w'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: change a group through PUT /api/v1/check/{check_id} with grouped_checks',
  },
  {
    operationId: 'removedCheckSbom',
    method: 'post',
    path: '/api/v1/check/{check_id}/sbom',
    service,
    tag: 'Checks',
    access: checks('w'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: upload an SBOM to its layer with POST /api/v1/layer/{layer_id}/sbom',
  },
  {
    operationId: 'removedCheckSecure',
    method: 'get',
    path: '/api/v1/check/{check_id}/secure',
    service,
    tag: 'Checks',
    access: checks('r'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: secrets are never returned',
  },
  {
    operationId: 'runCheck',
    method: 'post',
    path: '/api/v1/check/{check_id}/run',
    service,
    tag: 'Scans',
    access: checks('x'),
    summary: 'Queue a scan of the check',
    description:
      'A check with a scan already queued, running or parsing answers 409 naming that scan; so does one scan in flight more than the license\u2019s scanning_processes limit, naming the limit.',
    request: { params: byCheck },
    response: runResponse,
    errors: { 503: 'The license limits cannot be read (the identity service does not answer)' },
  },
  {
    operationId: 'runLayer',
    method: 'post',
    path: '/api/v1/layer/{layer_id}/run',
    service,
    tag: 'Scans',
    access: checks('x'),
    summary: 'Queue a scan of every check of the layer (no body)',
    description:
      'Checks that already have a scan in flight keep it and are listed with its id and state. When the scans to queue do not all fit under the license\u2019s scanning_processes limit, none is queued: 409 naming the limit.',
    errors: { 503: 'The license limits cannot be read (the identity service does not answer)' },
    request: { params: byLayer },
    response: z
      .object({
        scan_results: z.array(
          z.object({ check_id: z.string(), scan_result_id: z.string(), state: z.enum(scanStates) }),
        ),
      })
      .openapi('LayerRunResponse'),
  },
  {
    operationId: 'stopCheck',
    method: 'post',
    path: '/api/v1/check/{check_id}/stop',
    service,
    tag: 'Scans',
    access: checks('x'),
    summary: 'Stop the check\u2019s queued or running scan: the scanner is killed and its workspace removed',
    request: { params: byCheck },
    response: runResponse,
  },
  {
    operationId: 'setCheckComparison',
    method: 'put',
    path: '/api/v1/check/{check_id}/comparison',
    service,
    tag: 'Checks',
    access: checks('w'),
    summary: 'Set the incremental comparison mode of the check; the statistics follow it',
    request: { params: byCheck, body: comparisonBody },
    response: checkView,
  },
  {
    operationId: 'scanResultIssueStats',
    method: 'get',
    path: '/api/v1/scan-result/{result_id}/stats/issues',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary:
      'Findings of a completed result by severity, and new / unchanged / fixed against the result its check’s comparison mode names',
    request: { params: byResult },
    response: z
      .object({
        scan_result_id: z.string(),
        compared_with: z.string().nullable(),
        comparison_mode: z.string(),
        total: breakdown,
        new: breakdown,
        unchanged: breakdown,
        fixed: breakdown,
      })
      .openapi('ScanResultIssueStats'),
  },
  {
    operationId: 'compareScanResults',
    method: 'get',
    path: '/api/v1/scan-results/stats/compare',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary: 'Two completed results side by side: what only the first has, only the second, and both',
    request: { query: z.object({ first: z.uuid(), second: z.uuid() }).strict() },
    response: scanResultComparison,
  },
  {
    operationId: 'checkScanHistory',
    method: 'get',
    path: '/api/v1/scan-results/stats/{check_id}',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary:
      'The completed results of a check, newest first, with counts and new / fixed against their comparison base',
    request: {
      params: byCheck,
      query: z.object({ page: pageQuery.page, limit: pageQuery.limit.default(20) }).strict(),
    },
    response: checkHistory,
  },
  {
    operationId: 'listScanResults',
    method: 'get',
    path: '/api/v1/scan-results',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary: 'Scan results, newest first',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[check_id]': z.uuid().optional(),
            'filter[layer_id]': z.uuid().optional(),
            'filter[project_code]': z.string().max(64).optional(),
            'filter[state]': z.enum(scanStates).optional(),
            'filter[created_at_start]': isoDateTime.optional(),
            'filter[created_at_end]': isoDateTime.optional(),
            'filter[updated_at_start]': isoDateTime.optional(),
            'filter[updated_at_end]': isoDateTime.optional(),
          })
          .strict(),
      ),
    },
    response: listOf(scanResultView, 'ScanResultList'),
  },
  {
    operationId: 'scanResultFilters',
    method: 'get',
    path: '/api/v1/scan-results/filter',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary:
      'Values the scan-result filters can take (checks, states, projects, layers, kinds, date range), within the given filters',
    request: {
      query: bracketQuery(
        z
          .object({
            'filter[checks]': z
              .union([z.uuid(), z.array(z.uuid())])
              .optional()
              .openapi({ description: 'One or several check ids (repeat the parameter)' }),
            'filter[created_at_start]': isoDateTime.optional(),
            'filter[created_at_end]': isoDateTime.optional(),
            'filter[updated_at_start]': isoDateTime.optional(),
            'filter[updated_at_end]': isoDateTime.optional(),
          })
          .strict(),
      ),
    },
    response: z
      .object({
        checks: z.array(z.object({ check_id: z.string(), count: z.number().int() })),
        states: z.array(z.object({ state: z.string(), count: z.number().int() })),
        project_codes: z.array(z.string()),
        layer_ids: z.array(z.string()),
        kinds: z.array(z.string()),
        created_at: z.object({ min: isoDateTime.nullable(), max: isoDateTime.nullable() }),
      })
      .openapi('ScanResultFilters'),
  },
  {
    operationId: 'getScanResult',
    method: 'get',
    path: '/api/v1/scan-result/{result_id}',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary: 'One scan result: state, progress, times, error, findings_count, quality_gate',
    request: { params: byResult },
    response: scanResultView,
  },
  {
    operationId: 'listScanFindings',
    method: 'get',
    path: '/api/v1/scan-result/{result_id}/findings',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary:
      'The normalized findings of a completed result, in report order (the issues service deduplicates them across scans)',
    request: {
      params: byResult,
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[severity]': z.enum(['critical', 'high', 'medium', 'low', 'info']).optional(),
            'filter[not_in]': z.uuid().optional().openapi({
              description:
                'Only the findings whose fingerprint this other result (of a project the caller sees) does not have: with the earlier result, the new ones; the other way round, the fixed ones',
            }),
          })
          .strict(),
      ),
    },
    response: listOf(
      z.record(z.string(), z.unknown()).openapi('Finding', { description: 'The @bulwark/findings model' }),
      'FindingList',
    ),
  },
  {
    operationId: 'downloadScanReport',
    method: 'get',
    path: '/api/v1/scan-result/{result_id}/report',
    service,
    tag: 'Scan results',
    access: results('r'),
    summary: 'The raw report as the scanner wrote it (or as it was uploaded)',
    description: 'XML, CSV or JSON by the report\u2019s format; a generated client reads it as text.',
    request: { params: byResult },
    // Text first: a client generator parses by the first type it knows, and text reads all three.
    files: { 'application/xml': 'text', 'text/csv': 'text', 'application/json': z.unknown() },
  },
  {
    operationId: 'listReportFormats',
    method: 'get',
    path: '/api/v1/scan-report-formats',
    service,
    tag: 'Scan results',
    access: perm('scanning.scan_results', 'r', 'organisation'),
    summary:
      'The report formats an upload takes: id (for ?format=), title and the tool versions tested, in detection order',
    request: { query: z.object({}).strict() },
    response: reportFormats,
  },
  {
    operationId: 'uploadCheckResults',
    method: 'post',
    path: '/api/v1/check/{check_id}/results',
    service,
    tag: 'Scan results',
    access: results('w'),
    summary: 'Upload a scanner report for a check; it is processed like a scan (or, with ?dry_run=true, only compared)',
    description: `With ?dry_run=true nothing is written: the answer (DryRunResult) counts the issues the upload would create (new), detect with their status kept (unchanged), fix, reopen, suppress (a security rule or the report's suppression) and detect as linked duplicates, with up to ${DRY_RUN_EXAMPLES} examples of each and why, and the quality-gate verdict it would give. The request body is the report itself (any content type, at most ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB; 413 above). The format is detected from the content or named by ?format=<id> (GET /api/v1/scan-report-formats, bulwark formats). Formats, by id, with the tool versions tested: ${FORMATS.map((f) => `${f.id}: ${f.title} (tested with ${f.testedWith})`).join('; ')}. An unparseable report answers 400 with the parser\u2019s message and leaves no scan result. Any check accepts uploads; for checks of a Manual tool it is the only way in.`,
    request: {
      params: byCheck,
      query: bracketQuery(
        z
          .object({
            format: z.string().max(64).optional(),
            file_name: z.string().max(255).optional(),
            dry_run: queryBool
              .optional()
              .describe(
                'true: parse and compare only, writing nothing (no scan result, no issue, no event); answers what the upload would do',
              ),
            'pull_request[number]': queryInt4(1).optional().openapi({
              description:
                'The pull (GitHub) or merge (GitLab) request this report is of: once the quality gate has its verdict, the check\u2019s source gets it on the request when the source has decoration set (PUT /api/v1/source/{source_id}/decoration)',
            }),
            'pull_request[head_sha]': z
              .string()
              .regex(/^[0-9a-fA-F]{40}$/, 'must be a full commit hash')
              .optional()
              .openapi({
                description:
                  'The pull request\u2019s head commit, which gets the commit status; only with pull_request[number]',
              }),
            'pull_request[base_branch]': z.string().min(1).max(255).optional().openapi({
              description: 'The branch the pull request merges into; only with pull_request[number]',
            }),
          })
          .strict(),
      ),
    },
    upload: { maxBytes: UPLOAD_MAX_BYTES },
    response: z.union([runResponse, dryRunResponse]),
  },
] as const satisfies readonly RouteSpec[];

const sbomRoutes = [
  {
    operationId: 'uploadLayerSbom',
    method: 'post',
    path: '/api/v1/layer/{layer_id}/sbom',
    service,
    tag: 'Dependencies',
    access: dependencies('w'),
    summary:
      'Upload a CycloneDX SBOM (JSON or XML) for a layer: its components become the layer\u2019s dependency list',
    description:
      'The body is the SBOM file. Vulnerabilities and VEX statements inside it are counted here; import them as findings with POST /api/v1/check/{check_id}/results.',
    request: { params: byLayer, query: z.object({ file_name: z.string().max(255).optional() }).strict() },
    upload: { maxBytes: UPLOAD_MAX_BYTES },
    response: sbomView,
  },
  {
    operationId: 'listSboms',
    method: 'get',
    path: '/api/v1/sboms',
    service,
    tag: 'Dependencies',
    access: dependencies('r'),
    summary: 'Uploaded SBOMs, newest first',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[project_code]': z.string().max(64).optional(),
            search: z.string().max(255).optional(),
          })
          .strict(),
      ),
    },
    response: listOf(sbomView, 'SbomList'),
  },
  {
    operationId: 'listDependencies',
    method: 'get',
    path: '/api/v1/dependencies',
    service,
    tag: 'Dependencies',
    access: dependencies('r'),
    summary: 'Components of each layer\u2019s latest SBOM',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'filter[layer_id]': z.uuid().optional(),
            'search[name]': z.string().max(255).optional(),
            'search[project_name]': z.string().max(255).optional(),
            'search[type]': z.string().max(64).optional(),
            'search[version]': z.string().max(128).optional(),
          })
          .strict(),
      ),
    },
    response: listOf(dependencyView, 'DependencyList'),
  },
  {
    operationId: 'dependencyFilters',
    method: 'get',
    path: '/api/v1/dependencies/filter',
    service,
    tag: 'Dependencies',
    access: dependencies('r'),
    summary: 'Values the dependency filters can take',
    request: {
      query: bracketQuery(
        z
          .object({
            'filter[layer_ids]': z
              .union([z.uuid(), z.array(z.uuid())])
              .optional()
              .openapi({ description: 'One or several layer ids (repeat the parameter)' }),
          })
          .strict(),
      ),
    },
    response: z
      .object({ types: z.array(z.string()), project_names: z.array(z.string()), layer_ids: z.array(z.string()) })
      .openapi('DependencyFilters'),
  },
] as const satisfies readonly RouteSpec[];

export const scanningRoutes = [...scanRoutes, ...sbomRoutes] as const;
