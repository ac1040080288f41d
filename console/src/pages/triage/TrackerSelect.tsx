import { api, ApiError } from '../../api';
import { Field } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import type { Page, Tracker } from '../../types';

/** The task trackers the caller may use (GET /trackers); a caller whose role cannot read them is told there are none. */
export function useTrackers() {
  return useLoad(
    () =>
      api<Page<Tracker>>('GET', '/trackers', undefined, { limit: 100 }).then(
        (page) => page.items,
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 403) return [] as Tracker[];
          throw err;
        },
      ),
    [],
  );
}

export function TrackerSelect({
  id,
  trackers,
  value,
  onChange,
}: {
  id: string;
  trackers: Tracker[];
  value: string;
  onChange: (id: string) => void;
}) {
  const { t } = useI18n();
  return (
    <Field id={id} label={t('trackerLabel')}>
      <select id={id} required value={value} onChange={(e) => onChange(e.target.value)}>
        {trackers.map((tr) => (
          <option key={tr.id} value={tr.id}>
            {tr.name} ({tr.type})
          </option>
        ))}
      </select>
    </Field>
  );
}
