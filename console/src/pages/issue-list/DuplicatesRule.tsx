import { useI18n } from '../../i18n';
import { navigate } from '../../router';
import { countsDuplicates, withParams } from './view';

/** States the view's rule for duplicates (see `countsDuplicates`) and switches it. */
export function DuplicatesRule({ search }: { search: URLSearchParams }) {
  const { t } = useI18n();
  const included = countsDuplicates(search);
  const switchable = !search.has('filter[duplicate_of]') && search.get('filter_inversion') !== 'true';
  return (
    <p className="hint" id="duplicates-rule">
      {t(included ? 'duplicatesIncluded' : 'duplicatesRule')}{' '}
      {switchable && (
        <button
          type="button"
          className="link"
          onClick={() =>
            navigate(withParams(search, (p) => (included ? p.delete('duplicates') : p.set('duplicates', 'include'))))
          }
        >
          {t(included ? 'hideDuplicates' : 'showDuplicates')}
        </button>
      )}
    </p>
  );
}
