import { z } from '../zod';
import { isoDateTime, perm, nonBlank } from '../common';
import { GATE_ACTIONS } from '../quality-gates';

export const checks = (letter: 'r' | 'w' | 'x' | 'd') => perm('scanning.checks', letter, 'project');

export const dependencies = (letter: 'r' | 'w' | 'x' | 'd') => perm('scanning.dependencies', letter, 'project');

export const results = (letter: 'r' | 'w' | 'x' | 'd') => perm('scanning.scan_results', letter, 'project');

/** The report formats an upload takes, by id (the `format` of an upload), title and the tool versions tested: the same catalogue for everyone. */
export const reportFormats = z
  .object({
    items: z.array(
      z
        .object({
          id: z.string(),
          title: z.string(),
          tested_with: z.string().openapi({ description: 'Tool versions and report layouts it was tested with' }),
        })
        .openapi('ReportFormat'),
    ),
  })
  .openapi('ReportFormatList');

export const UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

export const tagInfo = z
  .object({
    tag_name: nonBlank(255).openapi({ description: 'Branch, tag or image name, by source type' }),
    commit: z
      .string()
      .regex(/^[0-9a-fA-F]{7,64}$/, 'must be a commit hash')
      .optional(),
  })
  .strict()
  .openapi('TagInfo');

export const toolSettings = z
  .object({
    scan_result_lang: z.string().max(8).optional(),
    url: z.string().max(2048).optional(),
    auth_method: z.string().max(64).optional(),
    api_token: z
      .string()
      .max(4096)
      .optional()
      .openapi({ description: 'Stored encrypted, never returned; absent on update keeps the stored one' }),
    extra_args: z.array(z.string().max(512)).max(50).optional(),
    timeout_seconds: z.number().int().min(10).max(86400).optional(),
  })
  .strict()
  .openapi('CheckToolSettings', {
    description: 'Tool connection settings of the check; they override the tool\u2019s own',
  });

export const sourceAuth = z
  .object({
    url: z.string().max(2048).optional(),
    auth_method: z.string().max(64).optional(),
    branch_name: z.string().max(255).optional(),
  })
  .strict()
  .openapi('CheckSourceAuth', {
    description: 'Source parameters of the check: branch_name is used when the check has no tag',
  });

export const runScanTask = z
  .object({ type: z.enum(['manual']).openapi({ description: 'How scans start: manual (through the API)' }) })
  .strict();

/** The earlier interface named tool_settings tool_auth and the layer pipeline_id; both are mapped. */
export function mapLegacyCheckFields(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const body = { ...(raw as Record<string, unknown>) };
  if ('tool_auth' in body && !('tool_settings' in body)) {
    body.tool_settings = body.tool_auth;
    delete body.tool_auth;
  }
  if ('pipeline_id' in body && !('layer_id' in body)) {
    body.layer_id = body.pipeline_id;
    delete body.pipeline_id;
  }
  return body;
}

export const checkFields = {
  layer_id: z.uuid().openapi({ description: 'Layer; the earlier interface\u2019s pipeline_id is accepted instead' }),
  security_tool_id: z.uuid(),
  tool_settings: toolSettings
    .optional()
    .openapi({ description: 'The earlier interface\u2019s tool_auth is accepted instead' }),
  scan_source_id: z.uuid(),
  source_auth: sourceAuth.optional(),
  run_scan_task: runScanTask.optional(),
  project_code: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ description: 'Earlier interface: must be the layer\u2019s project' }),
};

export const checkCreateBody = z
  .preprocess(
    mapLegacyCheckFields,
    z
      .object({
        ...checkFields,
        tags: z
          .array(tagInfo)
          .max(100)
          .optional()
          // The scanning service refuses a tag repeated (tag_name and commit): the items are distinct.
          .openapi({ description: 'More than one tag creates a group: one check per tag', uniqueItems: true }),
      })
      .strict(),
  )
  .openapi('CheckCreate');

export const groupedCheck = z
  .object({ check_id: z.uuid().optional(), taginfo: tagInfo })
  .strict()
  .openapi('GroupedCheck');

export const checkUpdateBody = z
  .preprocess(
    mapLegacyCheckFields,
    z
      .object({
        layer_id: checkFields.layer_id.optional(),
        security_tool_id: checkFields.security_tool_id.optional(),
        tool_settings: checkFields.tool_settings,
        scan_source_id: checkFields.scan_source_id.optional(),
        source_auth: checkFields.source_auth,
        run_scan_task: checkFields.run_scan_task,
        project_code: checkFields.project_code,
        grouped_checks: z
          .array(groupedCheck)
          .max(100)
          .optional()
          .openapi({ description: 'Group membership: rules 4 to 9 of the guide' }),
      })
      .strict(),
  )
  .openapi('CheckUpdate');

export const scanStates = ['queued', 'running', 'parsing', 'completed', 'failed', 'stopped'] as const;

/** The verdict the issues service stores on a scan result once its findings are ingested. */
export const qualityGateVerdictView = z
  .object({
    status: z.enum(['passed', 'failed']),
    locked: z.boolean().openapi({ description: 'A gate linked with action lock failed' }),
    gates: z.array(
      z.object({
        quality_gate_id: z.string(),
        name: z.string(),
        action: z.enum(GATE_ACTIONS),
        status: z.enum(['passed', 'failed']),
      }),
    ),
    conditions: z.array(
      z.object({
        condition_id: z.string(),
        quality_gate_id: z.string(),
        quality_gate_name: z.string(),
        action: z.enum(GATE_ACTIONS),
        condition_type: z.string(),
        condition_value: z.string(),
        operator: z.string(),
        value: z.number(),
        measured: z.number(),
        passed: z.boolean(),
      }),
    ),
    scan_result_id: z.string(),
    layer_id: z.string(),
    evaluated_at: isoDateTime,
  })
  .openapi('QualityGateVerdict');

export type QualityGateVerdict = z.infer<typeof qualityGateVerdictView>;

export const scanResultView = z
  .object({
    id: z.string(),
    scan_result_id: z.string(),
    check_id: z.string(),
    layer_id: z.string(),
    project_code: z.string(),
    security_tool_id: z.string(),
    kind: z.enum(['scan', 'upload']),
    state: z.enum(scanStates),
    progress: z.number().int().openapi({ description: 'Percent, 0 to 100' }),
    stage: z.string().nullable().openapi({ description: 'What the scan does now: checkout, scan, parse, ...' }),
    error: z.string().nullable(),
    findings_count: z.number().int().nullable(),
    severity_counts: z.record(z.string(), z.number().int()).nullable(),
    report_format: z.string().nullable(),
    quality_gate: qualityGateVerdictView
      .nullable()
      .openapi({ description: 'Set once the findings are ingested; null before' }),
    pull_request: z
      .object({ number: z.number().int(), head_sha: z.string().nullable(), base_branch: z.string().nullable() })
      .nullable()
      .optional()
      .openapi({
        description: 'The pull or merge request an upload was of (its pull_request query); null for the rest',
      }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
    started_at: isoDateTime.nullable(),
    finished_at: isoDateTime.nullable(),
  })
  .openapi('ScanResult');

export const checkView = z
  .object({
    id: z.string(),
    group_id: z.string().nullable(),
    layer_id: z.string(),
    project_code: z.string(),
    security_tool_id: z.string(),
    tool_settings: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Without api_token; api_token_set says whether one is stored' }),
    scan_source_id: z.string(),
    source_auth: z.record(z.string(), z.unknown()),
    run_scan_task: z.record(z.string(), z.unknown()),
    taginfo: tagInfo.nullable(),
    grouped_checks: z
      .array(z.object({ check_id: z.string(), taginfo: tagInfo.nullable() }))
      .optional()
      .openapi({ description: 'Present when the check has a group_id: every check of the group, this one included' }),
    comparison: z.record(z.string(), z.unknown()),
    last_scan: scanResultView.nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Check');

export const checkHistory = z
  .object({
    items: z.array(
      z.object({
        scan_result_id: z.string(),
        created_at: isoDateTime,
        finished_at: isoDateTime.nullable(),
        findings_count: z.number().int().nullable(),
        severity_counts: z.record(z.string(), z.number().int()).nullable(),
        compared_with: z.string().nullable(),
        new: z.number().int(),
        fixed: z.number().int(),
        unchanged: z.number().int(),
      }),
    ),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi('CheckScanHistory');

export const byCheck = z.object({ check_id: z.uuid() });

export const byGroup = z.object({ group_id: z.uuid() });

export const byLayer = z.object({ layer_id: z.uuid() });

export const byResult = z.object({ result_id: z.uuid() });

export const breakdown = z
  .object({ count: z.number().int(), by_severity: z.record(z.string(), z.number().int()) })
  .openapi('SeverityBreakdown');

export const scanResultComparison = z
  .object({
    first: z.object({ scan_result_id: z.string(), created_at: isoDateTime, total: breakdown }),
    second: z.object({ scan_result_id: z.string(), created_at: isoDateTime, total: breakdown }),
    only_in_first: breakdown,
    only_in_second: breakdown,
    in_both: breakdown,
  })
  .openapi('ScanResultComparison');

export const comparisonBody = z
  .discriminatedUnion('mode', [
    z.object({ mode: z.literal('previous') }).strict(),
    z.object({ mode: z.literal('baseline'), baseline_scan_result_id: z.uuid() }).strict(),
    z.object({ mode: z.literal('pair'), scan_result_ids: z.tuple([z.uuid(), z.uuid()]) }).strict(),
  ])
  .openapi('Comparison', {
    description:
      'previous: each result with the one before it; baseline: every result with one chosen result; pair: two chosen results with each other',
  });

export const runResponse = z.object({ scan_result_id: z.string(), state: z.enum(scanStates) }).openapi('RunResponse');

export const sbomView = z
  .object({
    id: z.string(),
    layer_id: z.string(),
    project_code: z.string(),
    project_name: z.string(),
    format: z.string(),
    file_name: z.string(),
    components_count: z.number().int(),
    vulnerabilities_count: z.number().int(),
    uploaded_by: z.string().nullable(),
    created_at: isoDateTime,
  })
  .openapi('Sbom');

export const dependencyView = z
  .object({
    name: z.string(),
    version: z.string().nullable(),
    type: z.string().nullable(),
    purl: z.string().nullable(),
    licenses: z.array(z.string()).openapi({
      description: 'The component\u2019s licences as its SBOM states them: SPDX ids, licence names or SPDX expressions',
    }),
    layer_id: z.string(),
    project_code: z.string(),
    project_name: z.string(),
    sbom_id: z.string(),
  })
  .openapi('Dependency');
