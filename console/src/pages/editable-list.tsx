// The page shape the policy and notification settings share: a form above for a new record or the one
// being edited, the records in a table under it, each with its edit and delete buttons.
import { Fragment, ReactNode, useState } from 'react';
import { Loading } from '../components';
import { DeleteButton, deleteIds, LoadError, Save } from '../editing';
import type { Loaded } from '../hooks';
import { useI18n } from '../i18n';
import type { Page } from '../types';

/** What the page's form is given: the record it edits (none for a new one), and what to do after a save or on cancel. */
export interface EditingForm<T> {
  editing: T | undefined;
  onDone: () => void;
  onCancel: () => void;
}

export function EditableList<T extends { id: string; name: string }>({
  list,
  deletePath,
  form,
  columns,
  cells,
  actions,
}: {
  list: Loaded<Page<T>>;
  /** The API's bulk delete of these records (DELETE with ids). */
  deletePath: string;
  form: (f: EditingForm<T>) => ReactNode;
  /** The headings of the columns `cells` fills; the actions column comes last. */
  columns: string[];
  cells: (item: T) => ReactNode;
  /** Buttons of a row before its edit and delete. */
  actions?: (item: T) => ReactNode;
}) {
  const { t } = useI18n();
  const [editing, setEditing] = useState<T>();
  // A new form after each save: a saved one starts empty again (and forgets any secret typed in).
  const [saved, setSaved] = useState(0);
  return (
    <>
      <Fragment key={editing?.id ?? `new-${saved}`}>
        {form({
          editing,
          onDone: () => {
            setEditing(undefined);
            setSaved(saved + 1);
            list.reload();
          },
          onCancel: () => setEditing(undefined),
        })}
      </Fragment>
      {list.error && <LoadError error={list.error} />}
      {!list.data ? (
        !list.error && <Loading />
      ) : list.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <table className="grid">
          <thead>
            <HeadRow columns={columns}>
              <th scope="col" />
            </HeadRow>
          </thead>
          <tbody>
            {list.data.items.map((item) => (
              <tr key={item.id}>
                {cells(item)}
                <td className="actions">
                  {actions?.(item)}
                  <button type="button" onClick={() => setEditing(item)}>
                    {t('editX', item.name)}
                  </button>
                  <DeleteButton
                    what={item.name}
                    onDelete={async () => {
                      await deleteIds(deletePath, [item.id]);
                      list.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** A table's row of column headings, with any further heading cells after them. */
export function HeadRow({ columns, children }: { columns: string[]; children?: ReactNode }) {
  return (
    <tr>
      {columns.map((c) => (
        <th scope="col" key={c}>
          {c}
        </th>
      ))}
      {children}
    </tr>
  );
}

/** An editing form's save (`createLabel`, by default create, for a new record) and, while editing, its cancel. */
export function SaveButtons({
  save,
  editing,
  onCancel,
  createLabel,
}: {
  save: Save;
  editing: boolean;
  onCancel: () => void;
  createLabel?: string;
}) {
  const { t } = useI18n();
  return (
    <>
      <button type="submit" className="primary" disabled={save.busy}>
        {editing ? t('save') : (createLabel ?? t('create'))}
      </button>
      {editing && (
        <button type="button" onClick={onCancel}>
          {t('cancel')}
        </button>
      )}
    </>
  );
}

/** A failed save that named no field: the error itself (field problems stand beside their fields). */
export function SaveError({ save }: { save: Save }) {
  return save.error && Object.keys(save.problems).length === 0 ? <LoadError error={save.error} /> : null;
}
