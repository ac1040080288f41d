import { FormEvent, useState } from 'react';
import { useI18n } from '../i18n';
import type { Issue, Severity } from '../types';

const RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** The issue that stays the original by default: the more severe one, else the one found first. */
export function likelyOriginal(a: Issue, b: Issue): Issue {
  if (RANK[a.severity] !== RANK[b.severity]) return RANK[a.severity] < RANK[b.severity] ? a : b;
  return a.first_detected_at <= b.first_detected_at ? a : b;
}

/** Links this issue and a similar one as duplicates, the reader choosing which stays the original. */
export function DuplicateLinkForm({
  issue,
  other,
  onLink,
}: {
  issue: Issue;
  other: Issue;
  onLink: (original: Issue, duplicate: Issue) => void;
}) {
  const { t } = useI18n();
  const [original, setOriginal] = useState(likelyOriginal(issue, other).id);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (original === issue.id) onLink(issue, other);
    else onLink(other, issue);
  };
  return (
    <form className="card" onSubmit={submit} aria-label={t('linkDuplicateOf', other.title)}>
      <fieldset>
        <legend>{t('originalIs')}</legend>
        {[
          [issue, t('keepThisOriginal', t(`sev_${issue.severity}`))],
          [other, t('keepOtherOriginal', other.title, t(`sev_${other.severity}`))],
        ].map(([i, label]) => {
          const candidate = i as Issue;
          return (
            <label key={candidate.id} className="radio">
              <input
                type="radio"
                name="original"
                value={candidate.id}
                checked={original === candidate.id}
                onChange={() => setOriginal(candidate.id)}
              />{' '}
              {label as string}
            </label>
          );
        })}
      </fieldset>
      <button type="submit" className="primary">
        {t('linkDuplicate')}
      </button>
    </form>
  );
}
