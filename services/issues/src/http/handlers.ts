import { conflict, Db, HandlersOf, HttpResponse, listPage, notFound, requirePrincipal } from '@bulwark/platform';
import { issuesRoutes } from '@bulwark/contracts';
import { CyclonedxExports, sarifExport } from '../exports';
import type { DedupRule } from '../domain/match-key';
import type { Issues } from '../issues';
import type { QualityGates } from '../quality-gates';
import type { SecurityRules } from '../security-rules';
import type { Trackers } from '../trackers';
import { type GateRecord, gateStore, policyStore } from '../store/gates';
import type { SortKey } from '../store/issues';
import { securityRuleStore } from '../store/security-rules';
import { dedupRuleStore, statusStore } from '../store/settings';
import type { IssueRecord } from '../store/issues';
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
  issueView,
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

const dedupInput = (b: Parameters<Handlers['createDedupRule']>[0]['body']) => ({
  name: b.name,
  toolName: b.tool_name ?? null,
  fields: b.fields as DedupRule['fields'],
  scope: b.scope ?? 'project',
});
const conditionInput = (b: Parameters<Handlers['createCondition']>[0]['body']) => ({
  qualityGateId: b.quality_gate_id,
  conditionType: b.condition_type,
  conditionValue: b.condition_value ?? '',
  operator: b.operator,
  value: b.value,
});

/** HTTP handlers, keyed by the route table's operation ids: they translate, the services decide. */
export function issuesHandlers(
  db: Db,
  issues: Issues,
  rules: SecurityRules,
  gates: QualityGates,
  trackers: Trackers,
  boms: CyclonedxExports,
): Handlers {
  /** Issue views with their tickets, read in one query per page. */
  const views = async (rows: IssueRecord[]) => {
    const [names, tickets] = await Promise.all([issues.statusNames(), trackers.ticketsOf(rows.map((r) => r.id))]);
    return rows.map((r) => issueView(r, names, tickets.get(r.id)));
  };
  const one = async (row: IssueRecord) => (await views([row]))[0];
  const detailedGateView = async (gate: GateRecord) => gateView(await gates.details(gate));
  const bulk = (ids: string[], done: string[], okStatus: 'deleted') =>
    ids.map((id) => ({ id, status: done.includes(id) ? okStatus : ('not_found' as const) }));
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
    exportIssues: async (input) =>
      new HttpResponse(
        200,
        sarifExport(db, issueFilter(requirePrincipal(input), input.query), await issues.statusNames()),
        {
          'content-type': 'application/sarif+json',
          'content-disposition': 'attachment; filename="issues.sarif"',
        },
      ),
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
      ),
    }),
    getIssue: async (input) => one(await issues.visible(requirePrincipal(input), input.params.id)),
    updateIssue: async (input) => one(await issues.update(requirePrincipal(input), input.params.id, input.body)),
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
      items: (await statusStore.list(db, { ids: q.filter.id, name: q.search.name, invert: q.filter_inversion })).map(
        (s) => statusView(s, q.lang),
      ),
    }),
    listTransitions: async ({ query: q }) => ({
      items: (await statusStore.transitions(db, q.filter.from_status_id)).map(transitionView),
    }),
    createTransition: async ({ body }) =>
      transitionView(await issues.addTransition(body.from_status_id, body.to_status_id)),
    deleteTransitions: async ({ body }) => ({
      results: bulk(body.ids, await statusStore.deleteTransitions(db, body.ids), 'deleted'),
    }),

    listDedupRules: async ({ query: q }) =>
      listPage(q, await dedupRuleStore.list(db, { page: q.page, limit: q.limit, name: q.search.name }), dedupRuleView),
    createDedupRule: async ({ body }) =>
      dedupRuleView(await dedupRuleStore.insert(db, dedupInput(body)).catch(uniqueTool)),
    updateDedupRule: async ({ params, body }) => {
      const row = await dedupRuleStore.update(db, params.id, dedupInput(body)).catch(uniqueTool);
      if (!row) throw notFound(`Deduplication rule ${params.id}`);
      return dedupRuleView(row);
    },
    deleteDedupRules: async ({ body }) => ({
      results: bulk(body.ids, await dedupRuleStore.delete(db, body.ids), 'deleted'),
    }),

    createSecurityRule: async (input) => securityRuleView(await rules.create(requirePrincipal(input), input.body)),
    listSecurityRules: async ({ query: q }) =>
      listPage(
        q,
        await securityRuleStore.list(db, { page: q.page, limit: q.limit, ...ruleQuery(q) }),
        securityRuleView,
      ),
    securityRuleFilterValues: async ({ query: q }) =>
      securityRuleValuesView(await securityRuleStore.filterValues(db, ruleQuery(q))),
    getSecurityRule: async ({ params }) => securityRuleView(await rules.get(params.id)),
    updateSecurityRule: async ({ params, body }) => securityRuleView(await rules.update(params.id, body)),
    deleteSecurityRules: async ({ body }) => ({
      results: bulk(body.ids, await securityRuleStore.delete(db, body.ids), 'deleted'),
    }),

    createQualityGate: async (input) => detailedGateView(await gates.create(requirePrincipal(input), input.body.name)),
    listQualityGates: async ({ query: q }) => {
      const page = await gateStore.list(db, {
        page: q.page,
        limit: q.limit,
        author: q.search.author,
        name: q.search.name,
        project: q.search.project_name,
      });
      return {
        items: await Promise.all(page.items.map(detailedGateView)),
        total: page.total,
        page: q.page,
        limit: q.limit,
      };
    },
    getQualityGate: async ({ params }) => detailedGateView(await gates.get(params.id)),
    updateQualityGate: async ({ params, body }) => detailedGateView(await gates.rename(params.id, body.name)),
    deleteQualityGates: async ({ body }) => ({
      results: bulk(body.ids, await gateStore.delete(db, body.ids), 'deleted'),
    }),
    createCondition: async ({ body }) => conditionView(await gates.addCondition(conditionInput(body))),
    updateCondition: async ({ params, body }) =>
      conditionView(await gates.updateCondition(params.id, conditionInput(body))),
    deleteConditions: async ({ body }) => ({
      results: bulk(body.ids, await gateStore.deleteConditions(db, body.ids), 'deleted'),
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

    createPolicy: async (input) => {
      const b = input.body;
      await gates.assertGates((b.quality_gates ?? []).map((g) => g.quality_gate_id));
      return policyView(
        await policyStore.insert(db, {
          name: b.name,
          description: b.description ?? '',
          author: requirePrincipal(input).username,
          projectTags: b.project_tags,
          qualityGates: b.quality_gates ?? [],
        }),
      );
    },
    listPolicies: async ({ query: q }) =>
      listPage(
        q,
        await policyStore.list(db, {
          page: q.page,
          limit: q.limit,
          author: q.search.author,
          name: q.search.name,
          project: q.search.project_name,
        }),
        policyView,
      ),
    updatePolicy: async ({ params, body: b }) => {
      await gates.assertGates((b.quality_gates ?? []).map((g) => g.quality_gate_id));
      const row = await policyStore.update(db, params.id, {
        name: b.name,
        description: b.description ?? '',
        projectTags: b.project_tags,
        qualityGates: b.quality_gates ?? [],
      });
      if (!row) throw notFound(`Policy ${params.id}`);
      return policyView(row);
    },
    deletePolicies: async ({ body }) => ({
      results: bulk(body.ids, await policyStore.delete(db, body.ids), 'deleted'),
    }),
  };
}

/** One rule per tool (and one default): a second answers 409. */
function uniqueTool(err: Error & { code?: string }): never {
  if (err.code === '23505') throw conflict('A deduplication rule for this tool (or the default rule) exists');
  throw err;
}
