import { HandlersOf, listPage, requirePrincipal } from '@bulwark/platform';
import { triageRoutes } from '@bulwark/contracts';
import type { IssueAnalyses } from '../triage/analyses';
import type { IssueAssignments } from '../triage/assignments';
import type { RiskAcceptances } from '../triage/risk-acceptances';
import type { Issues } from '../issues';
import type { TrackerTickets } from '../trackers/tickets';
import { analysisView, issueViews } from './views';
import { assigneeView, riskAcceptanceView } from './triage-views';

export interface TriageUseCases {
  assignments: IssueAssignments;
  analyses: IssueAnalyses;
  acceptances: RiskAcceptances;
  issues: Pick<Issues, 'statusNames'>;
  tickets: Pick<TrackerTickets, 'ticketsOf'>;
}

/** HTTP handlers of triage (assignment, analysis, risk acceptance): they translate, the use cases decide. */
export function triageHandlers({
  assignments,
  analyses,
  acceptances,
  issues,
  tickets,
}: TriageUseCases): HandlersOf<typeof triageRoutes> {
  return {
    findAssignees: async (input) => ({
      items: (await assignments.find(requirePrincipal(input), input.query.search, input.query.limit)).map(assigneeView),
    }),
    assignIssue: async (input) => {
      const issue = await assignments.assign(
        requirePrincipal(input),
        input.params.id,
        input.body.assignee,
        input.body.comment,
      );
      return (await issueViews([issue], issues, tickets))[0];
    },
    assignIssues: async (input) => ({
      results: await assignments.assignMany(
        requirePrincipal(input),
        input.body.ids,
        input.body.assignee,
        input.body.comment,
      ),
    }),
    setIssueAnalysis: async (input) =>
      analysisView(await analyses.set(requirePrincipal(input), input.params.id, input.body)),
    createRiskAcceptance: async (input) =>
      riskAcceptanceView(await acceptances.create(requirePrincipal(input), input.body)),
    listRiskAcceptances: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await acceptances.list(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          states: q.filter.state,
          projectCodes: q.filter.project_code,
          approver: q.filter.approver,
          issueId: q.filter.issue,
        }),
        riskAcceptanceView,
      );
    },
    getRiskAcceptance: async (input) =>
      riskAcceptanceView(await acceptances.get(requirePrincipal(input), input.params.id)),
    approveRiskAcceptance: async (input) =>
      riskAcceptanceView(await acceptances.decide(requirePrincipal(input), input.params.id, true, input.body.comment)),
    rejectRiskAcceptance: async (input) =>
      riskAcceptanceView(await acceptances.decide(requirePrincipal(input), input.params.id, false, input.body.comment)),
    revokeRiskAcceptance: async (input) =>
      riskAcceptanceView(await acceptances.revoke(requirePrincipal(input), input.params.id, input.body.comment)),
  };
}
