import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { byId } from '../common';
import {
  bracketQuery,
  bulkResult,
  idsBody,
  int4,
  isoDateTime,
  listOf,
  multi,
  pageQuery,
  queryBool,
  queryInt4,
  perm,
} from '../common';
import {
  text,
  issueSearch,
  ISSUE_COUNT_GROUPS,
  ISSUE_SORTS,
  GATE_ACTIONS,
  issueFilterQuery,
  issueView,
  issueList,
  issueCountGroups,
  statusView,
  transitionView,
  securityRuleBody,
  securityRuleView,
  ruleFilterQuery,
  dedupRuleBody,
  dedupRuleView,
  conditionBody,
  conditionView,
  gateView,
  gateLinks,
  policyBody,
  policyView,
  changeResult,
  issueHistoryEntry,
} from '../schemas/issues';

const service = 'issues';
const issuesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.issues', l, 'project');
const statusesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.statuses', l, 'organisation');
const dedupP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.deduplicate_rules', l, 'organisation');
const rulesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.security_rules', l, 'project-set');
const gatesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.quality_gates', l, 'project-set');
const policiesP = (l: 'r' | 'w' | 'x' | 'd') => perm('issues.policies', l, 'project-set');

export const issuesRoutes = [
  // ---- issues
  {
    operationId: 'listIssues',
    method: 'get',
    path: '/api/v1/issues',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'A filtered, sorted page of the caller\u2019s issues',
    description:
      'Unknown parameters answer 400 naming them. sort: first_detected_at, last_detected_at, severity, cvss or status, "-" prefix for descending (default -first_detected_at: newest issues first). cursor (the next_cursor of the previous page) pages by keyset instead of page, which stays fast on deep pages.',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            sort: z
              .string()
              .regex(
                new RegExp(`^-?(${ISSUE_SORTS.join('|')})$`),
                `must be one of ${ISSUE_SORTS.join(', ')}, with an optional "-"`,
              )
              .optional(),
            cursor: z.string().max(512).optional().openapi({
              pattern: '^[A-Za-z0-9_-]+$',
              description:
                'Opaque: the next_cursor of the previous page, with the same sort; any other value answers 400 naming cursor',
            }),
            ...issueFilterQuery,
          })
          .strict(),
      ),
    },
    response: issueList,
  },
  {
    operationId: 'exportIssues',
    method: 'get',
    path: '/api/v1/issues/export',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'The caller\u2019s issues that match the filters, as a file in a standard format: SARIF or CSV (streamed)',
    description:
      'format=sarif: SARIF 2.1.0, one run per tool; rules carry CWE tags (external/cwe/cwe-N) and security-severity; results carry locations, ' +
      'partialFingerprints["bulwark/v1"] (Bulwark\u2019s fingerprint) and an accepted external suppression for False positive, Risk accepted and Suppressed. ' +
      'format=csv: RFC 4180 CSV with a header row, one issue a row, oldest first (id, project_code, severity, title, status, scanner, tool_name, category, rule_id, ' +
      'vulnerability_ids, cwes, lib_name, lib_version, file_path, start_line, cvss, epss, known_exploited, assignee, duplicate_of, first_detected_at, last_detected_at); ' +
      'a cell that a spreadsheet would run as a formula starts with an apostrophe. ' +
      'Every filter of GET /issues applies except filter_inversion.',
    request: {
      query: bracketQuery(
        z
          .object(issueFilterQuery)
          .omit({ filter_inversion: true })
          .extend({ format: z.enum(['sarif', 'csv']).default('sarif') })
          .strict(),
      ),
    },
    files: {
      'application/sarif+json': z
        .record(z.string(), z.unknown())
        .openapi('SarifLog', { description: 'A SARIF 2.1.0 log (https://json.schemastore.org/sarif-2.1.0.json)' }),
      'text/csv': 'text',
    },
  },
  {
    operationId: 'exportLayerCyclonedx',
    method: 'get',
    path: '/api/v1/layer/{layer_id}/sbom',
    service,
    tag: 'Dependencies',
    access: perm('scanning.dependencies', 'r', 'project'),
    summary:
      'A layer\u2019s dependencies (kind=sbom) or the status of their vulnerabilities (kind=vex) as a CycloneDX 1.6 JSON document',
    description:
      'kind=sbom: the components of the layer\u2019s latest uploaded SBOM (POST /api/v1/layer/{layer_id}/sbom); its serialNumber is urn:uuid:<the SBOM\u2019s id>. ' +
      'kind=vex (also needs issues.issues:r): one vulnerability per issue of the layer that names a library or a CVE, affecting the SBOM\u2019s component by BOM-Link ' +
      '(urn:cdx:<SBOM id>/1#<bom-ref>) or a component listed in the VEX when the library is not in the SBOM. analysis: the one recorded with PUT /api/v1/issue/{id}/analysis, else from the issue\u2019s status: ' +
      'New, Reopen and custom statuses in_triage; Confirmed exploitable; In progress exploitable with response update; Risk accepted exploitable with response will_not_fix; ' +
      'Fixed resolved; False positive false_positive; Suppressed not_affected (with the report\u2019s own VEX justification when it had one). ' +
      'A layer without an uploaded SBOM answers 404 for kind=sbom; its VEX lists the libraries as its own components.',
    request: {
      params: z.object({ layer_id: z.uuid() }),
      query: z
        .object({ format: z.enum(['cyclonedx']).default('cyclonedx'), kind: z.enum(['sbom', 'vex']).default('sbom') })
        .strict(),
    },
    files: {
      'application/vnd.cyclonedx+json': z.record(z.string(), z.unknown()).openapi('CycloneDxDocument', {
        description: 'A CycloneDX 1.6 JSON document: an SBOM (kind=sbom) or a VEX (kind=vex)',
      }),
    },
    errors: { 404: 'The layer is unknown to the caller, or (kind=sbom) it has no uploaded SBOM' },
  },
  {
    operationId: 'countIssues',
    method: 'get',
    path: '/api/v1/issues/count',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'How many issues match the filters',
    request: { query: bracketQuery(z.object(issueFilterQuery).strict()) },
    response: z.object({ count: z.number().int() }).openapi('IssueCount'),
  },
  {
    operationId: 'countIssuesGrouped',
    method: 'get',
    path: '/api/v1/issues/count/grouped',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary:
      'How many issues match the filters, per group: by severity, status, project, tool or category, or new, fixed and open per week',
    description:
      'Takes the filters of GET /api/v1/issues/count, the same project scope and the same permission. ' +
      'group_by (repeat for several: severity, status, project_code, tool, category, layer_id, lib_name, lib_version, cve) counts the matching issues per combination of those values: ' +
      'one group per combination that has issues (none with a count of 0), most severe first, then by status id, then by the other values alphabetically ' +
      '(an issue without a library, version or CVE in a group whose value is null, after the others); ' +
      'the counts add up to total, which is what GET /api/v1/issues/count answers for the same filters. Filters on project, tool, scanner, category, severity, ' +
      'status and filter[exclude_duplicates], grouped by the first five, read the precomputed counts as /issues/count does. ' +
      'group_by=week (alone; combined with another value it answers 400 naming group_by) is a series of `weeks` consecutive seven-day weeks, oldest first, ' +
      'the last ending at the time of the request: for each, new is the matching issues first detected in it, fixed the changes of a matching issue to Fixed in it, ' +
      'and open the matching issues in an open status (not Fixed, False positive, Risk accepted or Suppressed) at its end, from their status history: ' +
      'the definitions of the trend report, which applies them to its projects with duplicates left out (filter[exclude_duplicates]=true). ' +
      'The filters select issues by what they are now (a filter[status] keeps the issues in that status now, with their past).',
    request: {
      query: bracketQuery(
        z
          .object({
            ...issueFilterQuery,
            group_by: z
              .union([
                z.enum(ISSUE_COUNT_GROUPS),
                z.array(z.enum(ISSUE_COUNT_GROUPS)).min(1).max(ISSUE_COUNT_GROUPS.length),
              ])
              .transform((v) => [...new Set(Array.isArray(v) ? v : [v])])
              .openapi({ description: 'What to count by; repeat for several (week only alone)' }),
            weeks: queryInt4(1)
              .max(52, 'must be at most 52')
              .default(8)
              .openapi({ description: 'With group_by=week: how many weeks, from 1 to 52' }),
          })
          .strict(),
      ),
    },
    response: issueCountGroups,
  },
  {
    operationId: 'issueFilterValues',
    method: 'get',
    path: '/api/v1/issues/filter',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'Values available for each filter among the issues that match the given filters',
    request: { query: bracketQuery(z.object(issueFilterQuery).strict()) },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'issueBasicFilter',
    method: 'get',
    path: '/api/v1/issues/basic-filter',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary:
      'Statuses, severities, tools and projects of the caller\u2019s issues; detection date range with filter[need_detected_at]',
    request: {
      query: bracketQuery(
        z
          .object({
            'filter[need_detected_at]': queryBool.optional(),
            'filter[project_code]': multi(z.string().min(1).max(64)),
          })
          .strict(),
      ),
    },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'issueCvssSeverities',
    method: 'get',
    path: '/api/v1/issues/cvss-severities',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary:
      'The CVSS qualitative scale (score ranges per severity) and how many of the caller\u2019s issues fall in each',
    request: { query: bracketQuery(z.object({ 'filter[project_code]': multi(z.string().min(1).max(64)) }).strict()) },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'deleteIssues',
    method: 'delete',
    path: '/api/v1/issues',
    service,
    tag: 'Issues',
    access: issuesP('d'),
    summary: 'Delete issues by id (a later scan that finds them again creates them anew)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'changeIssuesStatus',
    method: 'put',
    path: '/api/v1/issues/status',
    service,
    tag: 'Issues',
    access: issuesP('w'),
    summary: 'Change the status of several issues, with a comment; each change must be an allowed transition',
    request: {
      body: z
        .object({
          ids: z.array(z.uuid()).min(1).max(1000),
          status_id: int4(1),
          comment: z.string().max(4000).optional(),
        })
        .strict(),
    },
    response: changeResult,
  },
  {
    operationId: 'getIssue',
    method: 'get',
    path: '/api/v1/issue/{id}',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'One issue',
    request: { params: byId },
    response: issueView,
  },
  {
    operationId: 'updateIssue',
    method: 'put',
    path: '/api/v1/issue/{id}',
    service,
    tag: 'Issues',
    access: issuesP('w'),
    summary: 'Assign an issue (assignee null unassigns) and/or change its status, with a comment',
    description: 'A status change not allowed by a transition answers 409 naming the allowed target statuses.',
    request: {
      params: byId,
      body: z
        .object({
          assignee: z.string().min(1).max(255).nullable().optional(),
          status_id: int4(1).optional(),
          comment: z.string().max(4000).optional(),
        })
        .strict(),
    },
    response: issueView,
  },
  {
    operationId: 'issueHistory',
    method: 'get',
    path: '/api/v1/issue/{id}/history',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'Who or what changed what and when, from which value to which, with comment; newest first',
    description:
      'responsible_user_values: user names who acted; responsible_group_values: kinds of actor (user, scan, security_rule, system, tracker: a status read from the linked ticket). These are kinds of actor, not user groups (GET /api/v1/groups): an action of a person is of kind user whichever user groups gave them the right.',
    request: {
      params: byId,
      query: z
        .object({
          ...pageQuery,
          responsible_user_values: multi(text),
          responsible_group_values: multi(z.enum(['user', 'scan', 'security_rule', 'system', 'tracker'])),
        })
        .strict(),
    },
    response: listOf(issueHistoryEntry, 'IssueHistory'),
  },
  {
    operationId: 'addIssueComment',
    method: 'post',
    path: '/api/v1/issue/{id}/comment',
    service,
    tag: 'Issues',
    access: issuesP('w'),
    summary: 'Comment on an issue',
    request: { params: byId, body: z.object({ message: z.string().trim().min(1).max(4000) }).strict() },
    response: z
      .object({
        id: z.string(),
        issue_id: z.string(),
        author: z.string(),
        message: z.string(),
        created_at: isoDateTime,
      })
      .openapi('IssueComment'),
  },
  {
    operationId: 'listIssueComments',
    method: 'get',
    path: '/api/v1/issue/{id}/comments',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary: 'Comments of an issue, oldest first',
    request: { params: byId, query: z.object(pageQuery).strict() },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'similarIssues',
    method: 'get',
    path: '/api/v1/issue/{id}/similar',
    service,
    tag: 'Issues',
    access: issuesP('r'),
    summary:
      'Issues of the same project from other findings that look like the same problem: same CVE and package, or same CWE, file and line',
    request: { params: byId },
    response: z.object({ items: z.array(issueView) }),
  },
  {
    operationId: 'linkDuplicates',
    method: 'post',
    path: '/api/v1/issue/{id}/duplicates',
    service,
    tag: 'Issues',
    access: issuesP('w'),
    summary: 'Link issues as duplicates of this main issue (ids) or unlink them (unlink: true)',
    request: {
      params: byId,
      body: z.object({ ids: z.array(z.uuid()).min(1).max(1000), unlink: z.boolean().optional() }).strict(),
    },
    response: changeResult,
  },
  // ---- statuses and transitions
  {
    operationId: 'listStatuses',
    method: 'get',
    path: '/api/v1/issues/statuses',
    service,
    tag: 'Issue statuses',
    access: statusesP('r'),
    summary: 'Issue statuses with English and Russian names',
    request: {
      query: bracketQuery(
        z
          .object({
            'filter[id]': multi(queryInt4(1)),
            'search[name]': issueSearch,
            filter_inversion: queryBool.optional(),
            lang: z.enum(['en', 'ru']).optional(),
          })
          .strict(),
      ),
    },
    response: z.object({ items: z.array(statusView) }),
  },
  {
    operationId: 'listTransitions',
    method: 'get',
    path: '/api/v1/issues/statuses/transitions',
    service,
    tag: 'Issue statuses',
    access: statusesP('r'),
    summary: 'Allowed manual status changes',
    request: { query: bracketQuery(z.object({ 'filter[from_status_id]': multi(queryInt4(1)) }).strict()) },
    response: z.object({ items: z.array(transitionView) }),
  },
  {
    operationId: 'createTransition',
    method: 'post',
    path: '/api/v1/issues/statuses/transition',
    service,
    tag: 'Issue statuses',
    access: statusesP('w'),
    summary: 'Allow a manual change from one status to another (409 when it exists)',
    request: { body: z.object({ from_status_id: int4(1), to_status_id: int4(1) }).strict() },
    response: transitionView,
  },
  {
    operationId: 'deleteTransitions',
    method: 'delete',
    path: '/api/v1/issues/statuses/transitions',
    service,
    tag: 'Issue statuses',
    access: statusesP('d'),
    summary: 'Delete transitions by id',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'removedDeleteTransition',
    method: 'delete',
    path: '/api/v1/issues/statuses/transitions/{id}',
    service,
    tag: 'Issue statuses',
    access: statusesP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/issues/statuses/transitions with { ids }',
  },
  // ---- deduplication rules
  {
    operationId: 'listDedupRules',
    method: 'get',
    path: '/api/v1/deduplicate-rules',
    service,
    tag: 'Deduplication',
    access: dedupP('r'),
    summary: 'Deduplication rules',
    request: { query: bracketQuery(z.object({ ...pageQuery, 'search[name]': issueSearch }).strict()) },
    response: listOf(dedupRuleView, 'DeduplicateRuleList'),
  },
  {
    operationId: 'createDedupRule',
    method: 'post',
    path: '/api/v1/deduplicate-rule',
    service,
    tag: 'Deduplication',
    access: dedupP('w'),
    summary: 'Create a deduplication rule (one per tool, one default); it applies to findings ingested afterwards',
    request: { body: dedupRuleBody },
    response: dedupRuleView,
  },
  {
    operationId: 'updateDedupRule',
    method: 'put',
    path: '/api/v1/deduplicate-rule/{id}',
    service,
    tag: 'Deduplication',
    access: dedupP('w'),
    summary: 'Update a deduplication rule',
    request: { params: byId, body: dedupRuleBody },
    response: dedupRuleView,
  },
  {
    operationId: 'deleteDedupRules',
    method: 'delete',
    path: '/api/v1/deduplicate-rules',
    service,
    tag: 'Deduplication',
    access: dedupP('d'),
    summary: 'Delete deduplication rules by id',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'removedDeleteDedupRule',
    method: 'delete',
    path: '/api/v1/deduplicate-rule/{id}',
    service,
    tag: 'Deduplication',
    access: dedupP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/deduplicate-rules with { ids }',
  },
  // ---- security rules
  {
    operationId: 'createSecurityRule',
    method: 'post',
    path: '/api/v1/security-rule',
    service,
    tag: 'Security rules',
    access: rulesP('w'),
    summary:
      'Create a security rule: matching open issues (now and at later ingestions) get suppressing_status; at expires_at they move to expiry_status',
    request: { body: securityRuleBody },
    response: securityRuleView,
  },
  {
    operationId: 'listSecurityRules',
    method: 'get',
    path: '/api/v1/security-rules',
    service,
    tag: 'Security rules',
    access: rulesP('r'),
    summary: 'Security rules',
    request: { query: bracketQuery(z.object({ ...pageQuery, ...ruleFilterQuery }).strict()) },
    response: listOf(securityRuleView, 'SecurityRuleList'),
  },
  {
    operationId: 'securityRuleFilterValues',
    method: 'get',
    path: '/api/v1/security-rules/filter',
    service,
    tag: 'Security rules',
    access: rulesP('r'),
    summary: 'Values available for each security-rule filter',
    request: { query: bracketQuery(z.object(ruleFilterQuery).strict()) },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'getSecurityRule',
    method: 'get',
    path: '/api/v1/security-rule/{id}',
    service,
    tag: 'Security rules',
    access: rulesP('r'),
    summary: 'One security rule',
    request: { params: byId },
    response: securityRuleView,
  },
  {
    operationId: 'updateSecurityRule',
    method: 'put',
    path: '/api/v1/security-rule/{id}',
    service,
    tag: 'Security rules',
    access: rulesP('w'),
    summary: 'Update a security rule (it applies again to matching open issues)',
    request: { params: byId, body: securityRuleBody },
    response: securityRuleView,
  },
  {
    operationId: 'deleteSecurityRules',
    method: 'delete',
    path: '/api/v1/security-rules',
    service,
    tag: 'Security rules',
    access: rulesP('d'),
    summary: 'Delete security rules by id (suppressed issues keep their status)',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'removedDeleteSecurityRule',
    method: 'delete',
    path: '/api/v1/security-rule/{id}',
    service,
    tag: 'Security rules',
    access: rulesP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/security-rules with { ids }',
  },
  // ---- quality gates
  {
    operationId: 'createQualityGate',
    method: 'post',
    path: '/api/v1/quality-gate',
    service,
    tag: 'Quality gates',
    access: gatesP('w'),
    summary: 'Create a quality gate',
    request: { body: z.object({ name: z.string().trim().min(1).max(255) }).strict() },
    response: gateView,
  },
  {
    operationId: 'listQualityGates',
    method: 'get',
    path: '/api/v1/quality-gates',
    service,
    tag: 'Quality gates',
    access: gatesP('r'),
    summary: 'Quality gates with conditions and linked layers',
    description: 'search[project_name] matches the project code of the layers a gate is linked to.',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[author]': issueSearch,
            'search[name]': issueSearch,
            'search[project_name]': issueSearch,
          })
          .strict(),
      ),
    },
    response: listOf(gateView, 'QualityGateList'),
  },
  {
    operationId: 'getQualityGate',
    method: 'get',
    path: '/api/v1/quality-gate/{id}',
    service,
    tag: 'Quality gates',
    access: gatesP('r'),
    summary: 'One quality gate',
    request: { params: byId },
    response: gateView,
  },
  {
    operationId: 'updateQualityGate',
    method: 'put',
    path: '/api/v1/quality-gate/{id}',
    service,
    tag: 'Quality gates',
    access: gatesP('w'),
    summary: 'Rename a quality gate',
    request: { params: byId, body: z.object({ name: z.string().trim().min(1).max(255) }).strict() },
    response: gateView,
  },
  {
    operationId: 'deleteQualityGates',
    method: 'delete',
    path: '/api/v1/quality-gates',
    service,
    tag: 'Quality gates',
    access: gatesP('d'),
    summary: 'Delete quality gates by id, with their conditions and links',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'createCondition',
    method: 'post',
    path: '/api/v1/condition',
    service,
    tag: 'Quality gates',
    access: gatesP('w'),
    summary: 'Add a condition to a quality gate',
    description:
      'Passes when measured OPERATOR value holds; measured counts the layer\u2019s open issues (not fixed, suppressed, false positive or risk accepted; no duplicates).',
    request: { body: conditionBody },
    response: conditionView,
  },
  {
    operationId: 'updateCondition',
    method: 'put',
    path: '/api/v1/condition/{id}',
    service,
    tag: 'Quality gates',
    access: gatesP('w'),
    summary: 'Update a condition',
    request: { params: byId, body: conditionBody },
    response: conditionView,
  },
  {
    operationId: 'deleteConditions',
    method: 'delete',
    path: '/api/v1/conditions',
    service,
    tag: 'Quality gates',
    access: gatesP('d'),
    summary: 'Delete conditions by id',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'linkGatesToLayer',
    method: 'post',
    path: '/api/v1/quality-gate/link-layer',
    service,
    tag: 'Quality gates',
    access: gatesP('w'),
    summary: 'Set the gates of a layer (replaces its links); action lock blocks on failure, inform only reports',
    request: { body: z.object({ layer_id: z.uuid(), quality_gates: gateLinks }).strict() },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'linkGateToPipe',
    method: 'post',
    path: '/api/v1/quality-gate/link-pipe',
    service,
    tag: 'Quality gates',
    access: gatesP('w'),
    summary: 'Earlier interface: link one gate to a layer (adds or changes that one link)',
    request: {
      body: z.object({ layer_id: z.uuid(), quality_gate_id: z.uuid(), action: z.enum(GATE_ACTIONS) }).strict(),
    },
    response: z.record(z.string(), z.unknown()),
  },
  {
    operationId: 'layerGateState',
    method: 'get',
    path: '/api/v1/quality-gate/layer/{layer_id}',
    service,
    tag: 'Quality gates',
    access: perm('issues.quality_gates', 'r', 'project'),
    summary: 'The gates linked to a layer, whether it is locked, and the last verdict (for CI pipelines)',
    request: { params: z.object({ layer_id: z.uuid() }) },
    response: z.record(z.string(), z.unknown()),
  },
  // ---- policies
  {
    operationId: 'createPolicy',
    method: 'post',
    path: '/api/v1/policy',
    service,
    tag: 'Policies',
    access: policiesP('w'),
    summary: 'Create a policy: quality gates applied to every layer of the projects carrying one of its tags',
    request: { body: policyBody },
    response: policyView,
  },
  {
    operationId: 'listPolicies',
    method: 'get',
    path: '/api/v1/policies',
    service,
    tag: 'Policies',
    access: policiesP('r'),
    summary: 'Policies',
    description: 'search[project_name] matches a project tag of the policy.',
    request: {
      query: bracketQuery(
        z
          .object({
            ...pageQuery,
            'search[author]': issueSearch,
            'search[name]': issueSearch,
            'search[project_name]': issueSearch,
          })
          .strict(),
      ),
    },
    response: listOf(policyView, 'PolicyList'),
  },
  {
    operationId: 'updatePolicy',
    method: 'put',
    path: '/api/v1/policy/{id}',
    service,
    tag: 'Policies',
    access: policiesP('w'),
    summary: 'Update a policy',
    request: { params: byId, body: policyBody },
    response: policyView,
  },
  {
    operationId: 'deletePolicies',
    method: 'delete',
    path: '/api/v1/policies',
    service,
    tag: 'Policies',
    access: policiesP('d'),
    summary: 'Delete policies by id',
    request: { body: idsBody },
    response: bulkResult,
  },
  {
    operationId: 'removedDeletePolicy',
    method: 'delete',
    path: '/api/v1/policy/{id}',
    service,
    tag: 'Policies',
    access: policiesP('d'),
    summary: 'Removed in release 1.5',
    gone: 'Removed in release 1.5: use DELETE /api/v1/policies with { ids }',
  },
] as const satisfies readonly RouteSpec[];
