import { useI18n } from '../../i18n';
import type { Issue } from '../../types';
import { AnalysisForm } from './AnalysisForm';
import { CommentThread } from './CommentThread';
import { IssueAssignment } from './IssueAssignment';
import { IssueTicket } from './IssueTicket';
import { RiskAcceptancePanel } from './RiskAcceptancePanel';

/** The issue page's triage: assignee, VEX analysis, comments, risk acceptance and the tracker ticket. */
export function IssueTriage({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { t } = useI18n();
  return (
    <section aria-labelledby="triage-title" className="triage">
      <h2 id="triage-title">{t('triage')}</h2>
      <IssueAssignment issue={issue} onChange={onChange} />
      {/* Keyed by the issue, not its analysis: a save reloads the issue, and a new key would unmount the
          form and its note saying the analysis was saved. */}
      <AnalysisForm key={issue.id} issue={issue} onChange={onChange} />
      <CommentThread issueId={issue.id} />
      <RiskAcceptancePanel issue={issue} onChange={onChange} />
      <IssueTicket issue={issue} onChange={onChange} />
    </section>
  );
}
