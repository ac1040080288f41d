import { useI18n } from '../../i18n';
import { navigate } from '../../router';
import { PAGE_SIZES, pageSize, pageStart, withParams } from './view';
import { Field } from '../../components';

/** Goes to another page of the list and brings its top into view, the heading focused for screen readers. */
function goTo(to: string) {
  navigate(to);
  window.scrollTo(0, 0);
  document.getElementById('issues-title')?.focus();
}

/**
 * The list's place ("1–50 of 1,234") with the page size above the table (`at="top"`), with the paging
 * below it; `from` in the address keeps the place beside the API's cursor.
 */
export function Pager({
  search,
  shown,
  total,
  nextCursor,
  at,
}: {
  search: URLSearchParams;
  shown: number;
  total: number;
  nextCursor: string | null;
  at: 'top' | 'bottom';
}) {
  const { t, lang } = useI18n();
  const start = pageStart(search);
  const size = pageSize(search);
  const n = (x: number) => x.toLocaleString(lang);
  const place = shown ? t('rangeOf', n(start + 1), n(start + shown), n(total)) : t('noneOf', n(total));
  if (at === 'top')
    return (
      <div className="pager list-place">
        <p role="status">{place}</p>
        <Field id="page-size" label={t('perPage')}>
          <select
            id="page-size"
            value={size}
            onChange={(e) => navigate(withParams(search, (p) => p.set('limit', e.target.value)))}
          >
            {PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
      </div>
    );
  return (
    <div className="pager list-place">
      <p>{place}</p>
      <nav aria-label={t('paging')}>
        {search.has('cursor') && (
          <button type="button" onClick={() => goTo(withParams(search, () => undefined))}>
            {t('firstPage')}
          </button>
        )}
        {nextCursor && (
          <button
            type="button"
            onClick={() =>
              goTo(
                withParams(search, (p) => {
                  p.set('cursor', nextCursor);
                  p.set('from', String(start + shown));
                }),
              )
            }
          >
            {t('nextPage')}
          </button>
        )}
      </nav>
    </div>
  );
}
