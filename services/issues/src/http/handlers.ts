import { Db, HandlersOf, HttpResponse, listPage, requirePrincipal } from '@bulwark/platform';
import { issuesRoutes } from '@bulwark/contracts';
import { AssistantSettings } from '../assistant-settings';
import { csvExport } from '../csv-export';
import { CyclonedxExports, sarifExport } from '../exports';
import type { DedupRules } from '../dedup-rules';
import type { GateConditions } from '../gate-conditions';
import type { Issues } from '../issues';
import type { Policies } from '../policies';
import type { QualityGates } from '../quality-gates';
import type { SecurityRules } from '../security-rules';
import type { Statuses } from '../statuses';
import type { TrackerTickets } from '../trackers/tickets';
import type { IssueRecord, SortKey } from '../store/issues/issue-store';
import {
  commentView,
  conditionView,
  countGroupView,
  dedupRuleView,
  gateView,
  historyView,
  issueBasicFilterView,
  issueFilter,
  issueFilterValuesView,
  issueViews,
  layerGateStateView,
  policyView,
  securityRuleValuesView,
  securityRuleView,
  statusView,
  transitionView,
  weekCountsView,
} from './views';

type Handlers = HandlersOf<typeof issuesRoutes>;

const ruleQuery = ({ filter: f, search }: Parameters<Handlers['securityRuleFilterValues']>[0]['query']) => ({
  suppressingStatus: f.suppressing_status,
  expiryStatus: f.expiry_status,
  expired: f.expired,
  instrumentType: f.instrument_type,
  toolTypeName: f.tool_type_name,
  cve: f.cve,
  cwe: f.cwe,
  name: search.name,
  author: search.author,
});

/** The query of lists of gates and policies: by author, name, and project (a gate's layers' projects, a policy's tags). */
const authoredQuery = (q: Parameters<Handlers['listPolicies']>[0]['query']) => ({
  page: q.page,
  limit: q.limit,
  author: q.search.author,
  name: q.search.name,
  project: q.search.project_name,
});
const conditionInput = (b: Parameters<Handlers['createCondition']>[0]['body']) => ({
  qualityGateId: b.quality_gate_id,
  conditionType: b.condition_type,
  conditionValue: b.condition_value ?? '',
  operator: b.operator,
  value: b.value,
});

/** The issues service's use cases, as the composition root wires them. */
export interface IssuesUseCases {
  db: Db;
  issues: Issues;
  statuses: Statuses;
  dedupRules: DedupRules;
  rules: SecurityRules;
  gates: QualityGates;
  conditions: GateConditions;
  policies: Policies;
  tickets: TrackerTickets;
  boms: CyclonedxExports;
}

/** HTTP handlers, keyed by the route table's operation ids: they translate, the services decide. */
export function issuesHandlers({
  db,
  issues,
  statuses,
  dedupRules,
  rules,
  gates,
  conditions,
  policies,
  tickets,
  boms,
}: IssuesUseCases): Handlers {
  const views = (rows: IssueRecord[]) => issueViews(rows, issues, tickets);
  const one = async (row: IssueRecord) => (await views([row]))[0];
  return {
    listIssues: async (input) => {
      const q = input.query;
      const sort = q.sort ?? '-first_detected_at';
      const [page, total] = await issues.list(issueFilter(requirePrincipal(input), q), {
        page: q.page,
        limit: q.limit,
        sort: sort.replace(/^-/, '') as SortKey,
        desc: sort.startsWith('-'),
        cursor: q.cursor,
      });
      return { items: await views(page.items), total, page: q.page, limit: q.limit, next_cursor: page.nextCursor };
    },
    exportIssues: async (input) => {
      const filter = issueFilter(requirePrincipal(input), input.query);
      const names = await issues.statusNames();
      return input.query.format === 'csv'
        ? new HttpResponse(200, csvExport(db, filter, names), {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="issues.csv"',
          })
        : new HttpResponse(200, sarifExport(db, filter, names), {
            'content-type': 'application/sarif+json',
            'content-disposition': 'attachment; filename="issues.sarif"',
          });
    },
    exportLayerCyclonedx: async (input) =>
      new HttpResponse(
        200,
        JSON.stringify(await boms.layer(requirePrincipal(input), input.params.layer_id, input.query.kind)),
        {
          'content-type': 'application/vnd.cyclonedx+json; version=1.6',
          'content-disposition': `attachment; filename="${input.query.kind === 'vex' ? 'vex' : 'sbom'}.cdx.json"`,
        },
      ),
    countIssues: async (input) => ({ count: await issues.count(issueFilter(requirePrincipal(input), input.query)) }),
    countIssuesGrouped: async (input) => {
      const q = input.query;
      const counted = await issues.countGrouped(issueFilter(requirePrincipal(input), q), q.group_by, q.weeks);
      return 'weeks' in counted
        ? { group_by: q.group_by, groups: counted.weeks.map(weekCountsView) }
        : { group_by: q.group_by, groups: counted.groups.map(countGroupView), total: counted.total };
    },
    issueFilterValues: async (input) =>
      issueFilterValuesView(await issues.filterValues(issueFilter(requirePrincipal(input), input.query))),
    issueBasicFilter: async (input) =>
      issueBasicFilterView(
        await issues.basicFilter(
          issueFilter(requirePrincipal(input), input.query),
          input.query.filter.need_detected_at ?? false,
        ),
      ),
    issueCvssSeverities: async (input) => issues.cvssSeverities(issueFilter(requirePrincipal(input), input.query)),
    deleteIssues: async (input) => ({ results: await issues.delete(requirePrincipal(input), input.body.ids) }),
    changeIssuesStatus: async (input) => ({
      results: await issues.changeMany(
        requirePrincipal(input),
        input.body.ids,
        input.body.status_id,
        input.body.comment,
        AssistantSettings.via(input.via),
      ),
    }),
    getIssue: async (input) => one(await issues.visible(requirePrincipal(input), input.params.id)),
    updateIssue: async (input) =>
      one(await issues.update(requirePrincipal(input), input.params.id, input.body, AssistantSettings.via(input.via))),
    issueHistory: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await issues.history(requirePrincipal(input), input.params.id, {
          page: q.page,
          limit: q.limit,
          users: q.responsible_user_values,
          kinds: q.responsible_group_values,
        }),
        historyView,
      );
    },
    addIssueComment: async (input) =>
      commentView(await issues.comment(requirePrincipal(input), input.params.id, input.body.message)),
    listIssueComments: async (input) =>
      listPage(input.query, await issues.comments(requirePrincipal(input), input.params.id, input.query), commentView),
    similarIssues: async (input) => ({
      items: await views(await issues.similar(requirePrincipal(input), input.params.id)),
    }),
    linkDuplicates: async (input) => ({
      results: await issues.linkDuplicates(
        requirePrincipal(input),
        input.params.id,
        input.body.ids,
        input.body.unlink ?? false,
      ),
    }),

    listStatuses: async ({ query: q }) => ({
      items: (await statuses.list({ ids: q.filter.id, name: q.search.name, invert: q.filter_inversion })).map((s) =>
        statusView(s, q.lang),
      ),
    }),
    listTransitions: async ({ query: q }) => ({
      items: (await statuses.transitions(q.filter.from_status_id)).map(transitionView),
    }),
    createTransition: async ({ body }) =>
      transitionView(await statuses.addTransition(body.from_status_id, body.to_status_id)),
    deleteTransitions: async ({ body }) => ({ results: await statuses.deleteTransitions(body.ids) }),

    listDedupRules: async ({ query: q }) =>
      listPage(q, await dedupRules.list({ page: q.page, limit: q.limit, name: q.search.name }), dedupRuleView),
    createDedupRule: async ({ body }) => dedupRuleView(await dedupRules.create(body)),
    updateDedupRule: async ({ params, body }) => dedupRuleView(await dedupRules.update(params.id, body)),
    deleteDedupRules: async ({ body }) => ({ results: await dedupRules.delete(body.ids) }),

    createSecurityRule: async (input) => securityRuleView(await rules.create(requirePrincipal(input), input.body)),
    listSecurityRules: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await rules.list(requirePrincipal(input), { page: q.page, limit: q.limit, ...ruleQuery(q) }),
        securityRuleView,
      );
    },
    securityRuleFilterValues: async (input) =>
      securityRuleValuesView(await rules.filterValues(requirePrincipal(input), ruleQuery(input.query))),
    getSecurityRule: async (input) => securityRuleView(await rules.get(requirePrincipal(input), input.params.id)),
    updateSecurityRule: async (input) =>
      securityRuleView(await rules.update(requirePrincipal(input), input.params.id, input.body)),
    deleteSecurityRules: async (input) => ({ results: await rules.delete(requirePrincipal(input), input.body.ids) }),

    listQualityGates: async (input) =>
      listPage(input.query, await gates.list(requirePrincipal(input), authoredQuery(input.query)), gateView),
    createQualityGate: async (input) => gateView(await gates.create(requirePrincipal(input), input.body.name)),
    getQualityGate: async (input) => gateView(await gates.get(requirePrincipal(input), input.params.id)),
    updateQualityGate: async (input) =>
      gateView(await gates.rename(requirePrincipal(input), input.params.id, input.body.name)),
    deleteQualityGates: async (input) => ({ results: await gates.delete(requirePrincipal(input), input.body.ids) }),
    createCondition: async (input) =>
      conditionView(await conditions.add(requirePrincipal(input), conditionInput(input.body))),
    updateCondition: async (input) =>
      conditionView(await conditions.update(requirePrincipal(input), input.params.id, conditionInput(input.body))),
    deleteConditions: async (input) => ({
      results: await conditions.delete(requirePrincipal(input), input.body.ids),
    }),
    linkGatesToLayer: async (input) =>
      layerGateStateView(
        await gates.link(
          requirePrincipal(input),
          input.body.layer_id,
          input.body.quality_gates.map((l) => ({ qualityGateId: l.quality_gate_id, action: l.action })),
          true,
        ),
      ),
    linkGateToPipe: async (input) =>
      layerGateStateView(
        await gates.link(
          requirePrincipal(input),
          input.body.layer_id,
          [{ qualityGateId: input.body.quality_gate_id, action: input.body.action }],
          false,
        ),
      ),
    layerGateState: async (input) =>
      layerGateStateView(await gates.layerState(requirePrincipal(input), input.params.layer_id)),

    createPolicy: async (input) => policyView(await policies.create(requirePrincipal(input), input.body)),
    listPolicies: async (input) =>
      listPage(input.query, await policies.list(requirePrincipal(input), authoredQuery(input.query)), policyView),
    updatePolicy: async (input) =>
      policyView(await policies.update(requirePrincipal(input), input.params.id, input.body)),
    deletePolicies: async (input) => ({ results: await policies.delete(requirePrincipal(input), input.body.ids) }),
  };
}
