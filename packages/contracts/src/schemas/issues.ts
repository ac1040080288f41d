import { z } from '../zod';
import { VIA_CLIENTS } from './assistants';
import { ticketView } from './trackers';
import { ASSIGNEE_TYPES, analysisView } from './triage';
import {
  INT4_MAX,
  NestBrackets,
  int4,
  isoDateTime,
  multi,
  nonBlank,
  policyProjectTags,
  queryBool,
  queryInt4,
} from '../common';
import { SLA_STATES } from './sla';
import { atLeastOne, nonEmptyWhen, patternByValue, withFieldRules } from '../field-rules';
import { GATE_ACTIONS, GATE_CONDITION_TYPES, GATE_OPERATORS } from '../quality-gates';

export const text = z.string().min(1).max(255);

export const issueSearch = z.string().min(1).max(255).optional();

export const num = z.coerce.number().min(0).max(100).optional();

export const ISSUE_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** What GET /issues/count/grouped counts by. */
export const ISSUE_COUNT_GROUPS = [
  'severity',
  'status',
  'project_code',
  'tool',
  'category',
  'layer_id',
  'lib_name',
  'lib_version',
  'cve',
  'week',
] as const;

export const ISSUE_SORTS = [
  'first_detected_at',
  'last_detected_at',
  'severity',
  'cvss',
  'status',
  'risk_score',
  'sla_due_at',
] as const;

export { GATE_ACTIONS, GATE_CONDITION_TYPES, GATE_OPERATORS };

export const DEDUP_FIELDS = [
  'tool_fingerprint',
  'fingerprint',
  'rule_id',
  'file_path',
  'title',
  'cve',
  'cwe',
  'lib_name',
  'lib_version',
] as const;

export const DEDUP_SCOPES = ['project', 'layer'] as const;

/** The filter[...] and search[...] keys of issue queries (GET /issues, /issues/count, /issues/filter). */
export const issueFilterQuery = {
  'filter[tool]': multi(text).openapi({ description: 'Tool name (URL-encoded), exact; repeat for several' }),
  'filter[tool_name]': multi(text).openapi({ description: 'Same as filter[tool]' }),
  'filter[tool_id]': multi(z.string().min(1).max(64)),
  'filter[project_code]': multi(z.string().min(1).max(64)),
  'filter[layer]': multi(z.string().min(1).max(64)).openapi({ description: 'Layer id' }),
  'filter[check]': multi(z.string().min(1).max(64)).openapi({ description: 'Check id that last detected the issue' }),
  'filter[scan]': multi(z.string().min(1).max(64)).openapi({
    description: 'Scan result id that last detected the issue',
  }),
  'filter[status]': multi(queryInt4(1)).openapi({ description: 'Status id' }),
  'filter[severity]': multi(z.enum(ISSUE_SEVERITIES)),
  'filter[assignee]': multi(text).openapi({
    description:
      'me (issues assigned to the caller as a user), none (unassigned), a user or user group id, or an assignee name; repeat for several',
  }),
  'filter[category]': multi(text).openapi({ description: 'Issue category: sast, sca, secrets, iac, dast, container' }),
  'filter[cve]': multi(text),
  'filter[cwe]': multi(queryInt4(1)),
  'filter[lib_name]': multi(text),
  'filter[exploitability]': multi(z.enum(['known_exploited', 'epss', 'none'])).openapi({
    description: 'known_exploited (KEV), epss (has an EPSS score), none (neither)',
  }),
  'filter[detected_at_start]': isoDateTime.optional().openapi({ description: 'First detected at or after' }),
  'filter[detected_at_end]': isoDateTime.optional(),
  'filter[last_detected_at_start]': isoDateTime.optional(),
  'filter[last_detected_at_end]': isoDateTime.optional(),
  'filter[cvss_v2_min]': num,
  'filter[cvss_v2_max]': num,
  'filter[cvss_v3_min]': num,
  'filter[cvss_v3_max]': num,
  'filter[cvss_v4_min]': num,
  'filter[cvss_v4_max]': num,
  'filter[cvss_unknown_min]': num,
  'filter[cvss_unknown_max]': num,
  'filter[cvss_min]': num.openapi({ description: 'Highest score of any version' }),
  'filter[cvss_max]': num,
  'filter[epss_min]': z.coerce.number().min(0).max(1).optional(),
  'filter[risk_min]': z.coerce
    .number()
    .int()
    .min(0)
    .max(100, 'must be at most 100')
    .optional()
    .openapi({ description: 'Issues whose risk score (0-100) is at least this' }),
  'filter[sla_state]': multi(z.enum(SLA_STATES)).openapi({
    description: 'on_track, due_soon (less than a fifth of its time left) or breached (README "Issues", SLAs)',
  }),
  'filter[comment_message]': issueSearch.openapi({ description: 'Issues with a comment containing this text' }),
  'filter[exclude_duplicates]': queryBool
    .optional()
    .openapi({ description: 'Leave out issues linked as duplicates of another' }),
  'filter[duplicate_of]': z.uuid().optional(),
  filter_inversion: queryBool
    .optional()
    .openapi({ description: 'Negate every filter[...] given (project scope and search[...] stay as they are)' }),
  'search[title]': issueSearch,
  'search[file_path]': issueSearch,
  'search[lib_name]': issueSearch,
  'search[cve]': issueSearch,
  'search[assignee]': issueSearch,
  'search[rule_id]': issueSearch,
};

/** The issue filters as a handler receives them (see `bracketQuery`): `filter.tool`, `search.title`, `filter_inversion`. */
export type IssueFilterParams = NestBrackets<z.output<z.ZodObject<typeof issueFilterQuery>>>;

export const issueView = z
  .object({
    id: z.string(),
    project_code: z.string(),
    layer_id: z.string(),
    check_id: z.string(),
    scan_result_id: z.string(),
    tool_id: z.string(),
    tool_name: z.string(),
    scanner: z.string().openapi({
      description: 'The scanner whose report found it, as its findings name it (filter[tool_name] matches it)',
    }),
    category: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    severity: z.enum(ISSUE_SEVERITIES),
    rule_id: z.string().nullable(),
    status_id: z.number().int(),
    status: z.string(),
    assignee: z.string().nullable().openapi({ description: 'The assignee\u2019s name (username or user group name)' }),
    assignee_type: z.enum(ASSIGNEE_TYPES).nullable(),
    assignee_id: z.string().nullable(),
    analysis: analysisView.nullable().openapi({ description: 'The CycloneDX VEX analysis recorded for the issue' }),
    cve: z.string().nullable(),
    vulnerability_ids: z.array(z.string()),
    cwes: z.array(z.number().int()),
    lib_name: z.string().nullable(),
    lib_version: z.string().nullable(),
    file_path: z.string().nullable(),
    start_line: z.number().int().nullable(),
    cvss_v2: z.number().nullable(),
    cvss_v3: z.number().nullable(),
    cvss_v4: z.number().nullable(),
    cvss_unknown: z.number().nullable(),
    epss: z.number().nullable().openapi({
      description:
        'EPSS probability: the FIRST feed\u2019s for the issue\u2019s CVEs (the highest) when loaded, else the scanner\u2019s',
    }),
    known_exploited: z.boolean().openapi({
      description: 'In the CISA KEV catalog (loaded feed), or marked so by the scanner',
    }),
    epss_percentile: z.number().nullable().openapi({ description: 'EPSS percentile from the FIRST feed' }),
    kev_due_date: z.string().nullable().openapi({ description: 'The KEV catalog\u2019s due date (YYYY-MM-DD)' }),
    risk_score: z.number().int().openapi({
      description: 'round(100 \u00d7 impact \u00d7 likelihood \u00d7 criticality_weight), 0-100 (see risk_factors)',
    }),
    risk_factors: z
      .object({
        impact: z.number().openapi({ description: 'The highest CVSS over 10, else the severity\u2019s weight' }),
        impact_from: z.enum(['cvss', 'severity']),
        likelihood: z.number().openapi({ description: '1 known exploited, else 0.3 + 0.7 \u00d7 EPSS, else 0.5' }),
        likelihood_from: z.enum(['kev', 'epss', 'none']),
        criticality: z.enum(['low', 'medium', 'high', 'critical']).openapi({ description: 'The project\u2019s' }),
        criticality_weight: z.number(),
      })
      .openapi('IssueRiskFactors'),
    sla_due_at: isoDateTime.nullable().openapi({
      description:
        'When the applicable SLA policy wants the issue fixed: its first detection plus the days of its severity (a KEV issue: known_exploited_days, or the catalog\u2019s due date when earlier), plus the time it spent Risk accepted or Suppressed. Null when no policy applies, and while it is closed or paused',
    }),
    sla_state: z.enum(SLA_STATES).nullable(),
    fingerprint: z.string(),
    occurrences: z.number().int(),
    detections: z.number().int(),
    first_detected_at: isoDateTime,
    last_detected_at: isoDateTime,
    first_scan_result_id: z.string(),
    suppression: z.unknown().nullable(),
    security_rule_id: z.string().nullable(),
    duplicate_of: z.string().nullable(),
    updated_at: isoDateTime,
    ticket: ticketView.nullable().openapi({
      description:
        'The task-tracker ticket the issue is linked to: key, address and the status last read from the tracker',
    }),
  })
  .openapi('Issue');

export const issueList = z
  .object({
    items: z.array(issueView),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    next_cursor: z.string().nullable(),
  })
  .openapi('IssueList');

/** The answer of GET /issues/count/grouped: one group per combination of values, or per week. */
export const issueCountGroups = z
  .object({
    group_by: z.array(z.enum(ISSUE_COUNT_GROUPS)),
    groups: z.array(
      z
        .object({
          severity: z.enum(ISSUE_SEVERITIES).optional(),
          status_id: z.number().int().optional(),
          project_code: z.string().optional(),
          tool: z.string().optional(),
          category: z.string().optional(),
          layer_id: z.string().optional(),
          lib_name: z.string().nullable().optional(),
          lib_version: z.string().nullable().optional(),
          cve: z.string().nullable().optional(),
          count: z.number().int().optional().openapi({ description: 'Issues of the group (not with week)' }),
          week_start: isoDateTime.optional(),
          week_end: isoDateTime.optional(),
          new: z.number().int().optional(),
          fixed: z.number().int().optional(),
          open: z.number().int().optional(),
        })
        .openapi('IssueCountGroup'),
    ),
    total: z.number().int().optional().openapi({ description: 'Every matching issue (not with week)' }),
  })
  .openapi('IssueCountGroups');

export const statusView = z
  .object({ id: z.number().int(), name: z.string(), name_en: z.string(), name_ru: z.string(), builtin: z.boolean() })
  .openapi('IssueStatus');

export const transitionView = z
  .object({ id: z.string(), from_status_id: z.number().int(), to_status_id: z.number().int() })
  .openapi('IssueStatusTransition');

export const ruleParams = withFieldRules(
  z
    .object({
      instrument_type: z
        .string()
        .max(64)
        .optional()
        .openapi({ description: 'Tool category: sast, sca, secrets, iac, dast, container' }),
      tool_type_name: z.string().max(255).optional().openapi({ description: 'Tool name (case-insensitive)' }),
      category: z.string().max(64).optional().openapi({ description: 'Issue category' }),
      cve: z.string().max(64).optional(),
      cwe: z
        .union([
          z.string().max(16).openapi({ pattern: '^([Cc][Ww][Ee]-)?[1-9][0-9]{0,8}$' }),
          z.number().int().openapi({ minimum: 1, maximum: 999_999_999 }),
        ])
        .optional()
        .openapi({ description: '79 or CWE-79' }),
      active_for_all: z.boolean().optional().openapi({ description: 'true: every project; false: only project_codes' }),
      project_codes: z.array(z.string().min(1).max(64)).max(1000).optional(),
    })
    .strict(),
  [
    atLeastOne(
      ['instrument_type', 'tool_type_name', 'category', 'cve', 'cwe'],
      'needs instrument_type, tool_type_name, category, cve or cwe',
    ),
    nonEmptyWhen('project_codes', 'active_for_all', false, 'is required when active_for_all is false'),
  ],
).openapi({
  description:
    'At least one of instrument_type, tool_type_name, category, cve and cwe, not empty; project_codes, not empty, when active_for_all is false',
});

export const securityRuleBody = z
  .object({
    name: nonBlank(255),
    rule_params: ruleParams,
    suppressing_status: int4(1),
    expiry_status: int4(1),
    expires_at: isoDateTime
      .nullable()
      .optional()
      .openapi({ description: 'When the rule expires: its issues move to expiry_status' }),
  })
  .strict();

export const securityRuleView = z
  .object({
    id: z.string(),
    name: z.string(),
    rule_params: z.record(z.string(), z.unknown()),
    suppressing_status: z.number().int(),
    expiry_status: z.number().int(),
    expires_at: isoDateTime.nullable(),
    expired: z.boolean(),
    author: z.string(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('SecurityRule');

export const ruleFilterQuery = {
  'filter[suppressing_status]': multi(queryInt4(1)),
  'filter[expiry_status]': multi(queryInt4(1)),
  'filter[expired]': queryBool.optional(),
  'filter[instrument_type]': multi(text),
  'filter[tool_type_name]': multi(text),
  'filter[cve]': multi(text),
  'filter[cwe]': multi(text),
  'search[name]': issueSearch,
  'search[author]': issueSearch,
};

export const dedupRuleBody = z
  .object({
    name: nonBlank(255),
    tool_name: z.string().min(1).max(255).nullable().optional().openapi({
      description: 'Tool the rule applies to (case-insensitive); absent or null: every tool without its own rule',
    }),
    fields: z
      .array(z.enum(DEDUP_FIELDS))
      .min(1)
      .max(DEDUP_FIELDS.length)
      .openapi({ description: 'Fields whose values together identify an issue' }),
    scope: z
      .enum(DEDUP_SCOPES)
      .optional()
      .openapi({ description: 'project (default): one issue per project; layer: one per layer' }),
  })
  .strict();

export const dedupRuleView = z
  .object({
    id: z.string(),
    name: z.string(),
    tool_name: z.string().nullable(),
    fields: z.array(z.string()),
    scope: z.enum(DEDUP_SCOPES),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('DeduplicateRule');

/** Thresholds of the conditions on a score: a decimal number in the score's range. */
const SCORE_THRESHOLDS = {
  epss: { pattern: /^0*(\.[0-9]+|0(\.[0-9]*)?|1(\.0*)?)$/, message: 'must be a number from 0 to 1' },
  risk_score: { pattern: /^0*([0-9]{1,2}(\.[0-9]*)?|\.[0-9]+|100(\.0*)?)$/, message: 'must be a number from 0 to 100' },
};

export const conditionBody = withFieldRules(
  z
    .object({
      quality_gate_id: z.uuid(),
      condition_type: z.enum(GATE_CONDITION_TYPES),
      condition_value: z
        .string()
        .max(255)
        .optional()
        .openapi({
          description:
            'severity: a severity; cvss: the score threshold; new_issues: a severity or empty (any); category: a category; cwe: 79 or CWE-79; total: empty; ' +
            'known_exploited: empty (issues in CISA KEV); epss: a score from 0 to 1 (issues at or above it); risk_score: 0 to 100 (issues at or above it); sla_breached: empty (issues past their SLA due date)',
        }),
      operator: z.enum(GATE_OPERATORS),
      value: z
        .union([
          // The document states a subset of the digits int4 takes: at most nine after any zeros.
          z.string().regex(/^\d+$/, 'must be a whole number').openapi({ pattern: '^0*[0-9]{1,9}$' }),
          z.number().int().min(0).openapi({ maximum: INT4_MAX }),
        ])
        .transform((v) => Number(v))
        .pipe(int4(0))
        .openapi({ description: 'The number the measured count is compared with' }),
    })
    .strict(),
  [patternByValue('condition_value', 'condition_type', SCORE_THRESHOLDS)],
);

export const conditionView = z
  .object({
    id: z.string(),
    quality_gate_id: z.string(),
    condition_type: z.string(),
    condition_value: z.string(),
    operator: z.string(),
    value: z.string(),
  })
  .openapi('GateCondition');

export const gateView = z
  .object({
    id: z.string(),
    name: z.string(),
    author: z.string(),
    conditions: z.array(conditionView),
    layers: z.array(z.object({ layer_id: z.string(), action: z.string() })),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('QualityGate');

export const gateLink = z.object({ quality_gate_id: z.uuid(), action: z.enum(GATE_ACTIONS) }).strict();

/** A layer or policy links a gate once, with one action: a repeated gate is refused, never merged. */
export const gateLinks = z
  .array(gateLink)
  .max(100)
  .superRefine((links, ctx) => {
    links.forEach((link, i) => {
      if (links.findIndex((l) => l.quality_gate_id === link.quality_gate_id) < i) {
        ctx.addIssue({ code: 'custom', path: [i, 'quality_gate_id'], message: 'repeats a quality gate listed before' });
      }
    });
  });

export const policyBody = z
  .object({
    name: nonBlank(255),
    description: z.string().max(4000).optional(),
    project_tags: policyProjectTags,
    quality_gates: gateLinks.optional(),
  })
  .strict();

export const policyView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    author: z.string(),
    project_tags: z.array(z.string()),
    quality_gates: z.array(z.object({ quality_gate_id: z.string(), action: z.string() })),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .openapi('Policy');

export const changeResult = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['changed', 'unchanged', 'not_found', 'conflict']),
        message: z.string().optional(),
      }),
    ),
  })
  .openapi('IssueChangeResult');

export const matchReason = z
  .union([
    z.object({
      dedup_rule: z.string().nullable().describe('The deduplication rule by its tool name; null: the default rule'),
      fields: z.array(z.string()),
      scope: z.string(),
    }),
    z.object({ same_findings_as_scan: z.string().describe('An unchanged re-import: matched as that scan matched') }),
  ])
  .openapi('IssueMatchReason');

/** Why an ingestion changed a status (README "Issues", history). */
export const changeReason = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('fixed').describe('Absent from a complete scan of the check that found it'),
      scan_id: z.string(),
      check_id: z.string(),
    }),
    z.object({ kind: z.literal('reopened'), scan_id: z.string(), check_id: z.string(), match: matchReason }),
    z.object({
      kind: z.literal('report_suppression'),
      scan_id: z.string(),
      state: z.string(),
      match: matchReason.nullable(),
    }),
    z.object({ kind: z.literal('security_rule'), scan_id: z.string(), rule_id: z.string(), rule_name: z.string() }),
  ])
  .openapi('IssueChangeReason');

export const issueHistoryEntry = z.object({
  id: z.string(),
  at: isoDateTime,
  actor_kind: z.string(),
  actor: z.string(),
  field: z.string(),
  old_value: z.string().nullable(),
  new_value: z.string().nullable(),
  comment: z.string().nullable(),
  via: z
    .enum(VIA_CLIENTS)
    .nullable()
    .openapi({ description: 'mcp: the change was made through an AI assistant (the MCP server), by actor' }),
  // A union with null rather than .nullable(): the generator drops a nullable union's null.
  reason: z
    .union([changeReason, z.null()])
    .openapi({ description: 'Why an ingestion made the change; null for other changes' }),
});
