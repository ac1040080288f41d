import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Field, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import { Link } from '../../router';
import { can, useSession } from '../../session';
import type { Assignee, Issue, Page, RiskAcceptance } from '../../types';
import { AssigneePicker } from './AssigneePicker';

/** The end of a chosen day (local time), as the API's ISO 8601 time. */
const endOfDay = (day: string) => new Date(`${day}T23:59:59`).toISOString();
const inDays = (n: number) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);

/**
 * One acceptance: its state, who asked and until when, Approve / Reject for the approver it names, and
 * Revoke while it is pending or accepted for whoever may change the project's issues.
 */
function AcceptanceItem({ acceptance: a, onChange }: { acceptance: RiskAcceptance; onChange: () => void }) {
  const { t, lang } = useI18n();
  const { me } = useSession();
  const [comment, setComment] = useState('');
  const [error, setError] = useState<Error>();
  const decide = async (verdict: 'approve' | 'reject' | 'revoke') => {
    setError(undefined);
    try {
      await api('POST', `/risk-acceptance/${a.id}/${verdict}`, comment.trim() ? { comment: comment.trim() } : {});
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  const mine = a.state === 'pending' && a.approver_id === me.user.id;
  const revocable = (a.state === 'pending' || a.state === 'accepted') && can(me, 'issues.issues', 'w');
  return (
    <li className="card">
      <p>
        <strong>{t(`ra_${a.state}`)}</strong> —{' '}
        {t('acceptanceSummary', a.project_code, a.requested_by, formatDate(lang, a.expires_at))}
      </p>
      <p className="prewrap">{a.reason}</p>
      {a.state === 'pending' && a.approver && <p>{t('awaitingApprover', a.approver)}</p>}
      {a.decided_by && (
        <p>
          {t('decidedBy', a.decided_by)}
          {a.decision_comment ? `: ${a.decision_comment}` : ''}
        </p>
      )}
      {a.revoked_by && (
        <p>
          {t('revokedBy', a.revoked_by)}
          {a.revocation_comment ? `: ${a.revocation_comment}` : ''}
        </p>
      )}
      {(mine || revocable) && (
        <div className="inline">
          <Field id={`decision-${a.id}`} label={t('decisionComment')}>
            <input
              id={`decision-${a.id}`}
              value={comment}
              maxLength={4000}
              onChange={(e) => setComment(e.target.value)}
            />
          </Field>
          {mine && (
            <>
              <button type="button" className="primary" onClick={() => void decide('approve')}>
                {t('approve')}
              </button>
              <button type="button" onClick={() => void decide('reject')}>
                {t('reject')}
              </button>
            </>
          )}
          {revocable && (
            <button type="button" onClick={() => void decide('revoke')}>
              {t('revokeAcceptance')}
            </button>
          )}
        </div>
      )}
      {error && <ErrorNote error={error} />}
    </li>
  );
}

/** The risk acceptances of an issue, and a request to accept its risk until a day, optionally with a second approver. */
export function RiskAcceptancePanel({ issue, onChange }: { issue: Issue; onChange: () => void }) {
  const { t } = useI18n();
  const list = useLoad(
    () => api<Page<RiskAcceptance>>('GET', '/risk-acceptances', undefined, { 'filter[issue]': issue.id }),
    [issue.id],
  );
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState(inDays(30));
  const [approver, setApprover] = useState<Assignee>();
  const [withApprover, setWithApprover] = useState(false);
  const [error, setError] = useState<Error>();
  const changed = () => {
    list.reload();
    onChange();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api('POST', '/risk-acceptance', {
        issue_ids: [issue.id],
        reason,
        expires_at: endOfDay(until),
        ...(withApprover && approver ? { approver_id: approver.id } : {}),
      });
      setReason('');
      changed();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <section aria-labelledby="acceptance-title">
      <h3 id="acceptance-title">{t('riskAcceptance')}</h3>
      {list.error && <ErrorNote error={list.error} />}
      {!list.data ? (
        !list.error && <Loading />
      ) : list.data.items.length === 0 ? (
        <p>{t('noAcceptances')}</p>
      ) : (
        <ul className="plain">
          {list.data.items.map((a) => (
            <AcceptanceItem key={a.id} acceptance={a} onChange={changed} />
          ))}
        </ul>
      )}
      <form className="card inline" aria-labelledby="accept-title" onSubmit={(e) => void submit(e)}>
        <h4 id="accept-title">{t('requestAcceptance')}</h4>
        <Field id="accept-reason" label={t('acceptReason')}>
          <textarea
            id="accept-reason"
            required
            value={reason}
            maxLength={4000}
            onChange={(e) => setReason(e.target.value)}
          />
        </Field>
        <Field id="accept-until" label={t('acceptUntil')}>
          <input
            id="accept-until"
            type="date"
            required
            min={inDays(1)}
            value={until}
            onChange={(e) => setUntil(e.target.value)}
          />
        </Field>
        <label className="check">
          <input type="checkbox" checked={withApprover} onChange={(e) => setWithApprover(e.target.checked)} />
          {t('secondApprover')}
        </label>
        {withApprover && (
          <AssigneePicker
            idPrefix="approver"
            label={t('findAssignee')}
            hint={t('secondApproverHint')}
            users
            onChange={setApprover}
          />
        )}
        <button type="submit" className="primary" disabled={!reason.trim() || (withApprover && !approver)}>
          {t('submitAcceptance')}
        </button>
        {error && <ErrorNote error={error} />}
      </form>
    </section>
  );
}

/** Risk acceptances waiting for the caller's approval, each a link to its first issue; nothing when none wait. */
export function PendingApprovals() {
  const { t } = useI18n();
  const list = useLoad(
    () =>
      api<Page<RiskAcceptance>>('GET', '/risk-acceptances', undefined, {
        'filter[state]': 'pending',
        'filter[approver]': 'me',
      }),
    [],
  );
  const items = list.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="approvals-title" className="card">
      <h2 id="approvals-title">{t('pendingApprovals')}</h2>
      <ul>
        {items.map((a) => (
          <li key={a.id}>
            <Link to={`/issues/${a.issue_ids[0]}`}>{a.reason}</Link> ({a.requested_by}, {a.project_code})
          </li>
        ))}
      </ul>
    </section>
  );
}
