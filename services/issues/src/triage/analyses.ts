import { canSeeProject, notFound, Principal, ServiceData } from '@bulwark/platform';
import type { VexJustification, VexResponse, VexState } from '@bulwark/contracts';
import { historyStore } from '../store/history';
import { issueStore } from '../store/issues/issue-store';
import type { IssueAnalysis } from '../store/issues/rows';

export interface AnalysisInput {
  state: VexState;
  justification?: VexJustification | null;
  response?: VexResponse[];
  detail?: string | null;
}

/** The analysis as one line of history: the state, and the justification when there is one. */
const summary = (a: Pick<IssueAnalysis, 'state' | 'justification'> | null) =>
  a ? (a.justification ? `${a.state}: ${a.justification}` : a.state) : null;

/** A person's CycloneDX VEX analysis of an issue, which the VEX export states instead of the status's. */
export class IssueAnalyses {
  constructor(private readonly data: ServiceData) {}

  async set(principal: Principal, id: string, input: AnalysisInput): Promise<IssueAnalysis> {
    const at = new Date().toISOString();
    const analysis = {
      state: input.state,
      justification: input.justification ?? null,
      response: input.response ?? [],
      detail: input.detail?.trim() || null,
      by: principal.username,
    };
    await this.data.transaction(async (trx) => {
      const [issue] = await issueStore.getMany(trx, [id]);
      if (!issue || !canSeeProject(principal, issue.projectCode)) throw notFound(`Issue ${id}`);
      await issueStore.update(trx, id, { analysis }, at);
      await historyStore.add(trx, [
        {
          issueId: id,
          actorKind: 'user',
          actor: principal.username,
          field: 'analysis',
          oldValue: summary(issue.analysis),
          newValue: summary(analysis),
          comment: analysis.detail,
          at,
        },
      ]);
    });
    return { ...analysis, at };
  }
}
