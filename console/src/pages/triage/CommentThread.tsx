import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Field, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import type { IssueComment, Page } from '../../types';

/** The issue's comments, oldest first. Their text is shown as text (React escapes it), never as HTML. */
export function CommentThread({ issueId }: { issueId: string }) {
  const { t, lang } = useI18n();
  const comments = useLoad(
    () => api<Page<IssueComment>>('GET', `/issue/${issueId}/comments`, undefined, { limit: 1000 }),
    [issueId],
  );
  const [text, setText] = useState('');
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api('POST', `/issue/${issueId}/comment`, { message: text });
      setText('');
      comments.reload();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <section aria-labelledby="comments-title">
      <h3 id="comments-title">{t('comments')}</h3>
      {comments.error && <ErrorNote error={comments.error} />}
      {!comments.data ? (
        !comments.error && <Loading />
      ) : comments.data.items.length === 0 ? (
        <p>{t('noComments')}</p>
      ) : (
        <ol className="comments">
          {comments.data.items.map((c) => (
            <li key={c.id}>
              <p className="hint">{t('commentBy', c.author, formatDate(lang, c.created_at))}</p>
              <p className="prewrap">{c.message}</p>
            </li>
          ))}
        </ol>
      )}
      <form className="inline" onSubmit={(e) => void submit(e)}>
        <Field id="comment-text" label={t('newComment')}>
          <textarea
            id="comment-text"
            required
            value={text}
            maxLength={4000}
            onChange={(e) => setText(e.target.value)}
          />
        </Field>
        <button type="submit" className="primary" disabled={!text.trim()}>
          {t('addComment')}
        </button>
        {error && <ErrorNote error={error} />}
      </form>
    </section>
  );
}
