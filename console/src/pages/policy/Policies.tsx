import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { DeleteButton, deleteIds, LoadError, splitList, useSave } from '../../editing';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import type { GateAction, Page, Policy, PolicyBody, QualityGate } from '../../types';
import { GATE_ACTIONS } from '@bulwark/contracts/quality-gates';
import { PolicyTabs } from './tabs';

/** Policies: quality gates applied to every layer of the projects carrying one of the policy's tags. */
export function PoliciesPage() {
  const { t } = useI18n();
  const policies = useLoad(() => api<Page<Policy>>('GET', '/policies', undefined, { limit: 200 }), []);
  const gates = useLoad(
    () => api<Page<QualityGate>>('GET', '/quality-gates', undefined, { limit: 200 }).then((r) => r.items),
    [],
  );
  const [editing, setEditing] = useState<Policy>();
  // A new form after each save: a saved one starts empty again (and forgets any secret typed in).
  const [saved, setSaved] = useState(0);
  const gateName = (id: string) => gates.data?.find((g) => g.id === id)?.name ?? id;
  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title" tabIndex={-1}>
        {t('policies')}
      </h1>
      <PolicyTabs />
      <p className="hint">{t('policiesWhat')}</p>
      <PolicyForm
        key={editing?.id ?? `new-${saved}`}
        editing={editing}
        gates={gates.data ?? []}
        onDone={() => {
          setEditing(undefined);
          setSaved(saved + 1);
          policies.reload();
        }}
        onCancel={() => setEditing(undefined)}
      />
      {policies.error && <LoadError error={policies.error} />}
      {!policies.data ? (
        !policies.error && <Loading />
      ) : policies.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('projectTags')}</th>
              <th scope="col">{t('qualityGates')}</th>
              <th scope="col">{t('actor')}</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {policies.data.items.map((p) => (
              <tr key={p.id}>
                <td>
                  {p.name}
                  {p.description && (
                    <>
                      <br />
                      <span className="muted">{p.description}</span>
                    </>
                  )}
                </td>
                <td>{p.project_tags.join(', ')}</td>
                <td>
                  {p.quality_gates
                    .map((g) => `${gateName(g.quality_gate_id)} (${t(`action_${g.action as GateAction}`)})`)
                    .join(', ') || '—'}
                </td>
                <td>{p.author}</td>
                <td className="actions">
                  <button type="button" onClick={() => setEditing(p)}>
                    {t('editX', p.name)}
                  </button>
                  <DeleteButton
                    what={p.name}
                    onDelete={async () => {
                      await deleteIds('/policies', [p.id]);
                      policies.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PolicyForm({
  editing,
  gates,
  onDone,
  onCancel,
}: {
  editing?: Policy;
  gates: QualityGate[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState(editing?.name ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [tags, setTags] = useState(editing?.project_tags.join(', ') ?? '');
  // Gate id to its action; a gate absent from the map is not part of the policy.
  const [links, setLinks] = useState<Record<string, GateAction>>(
    Object.fromEntries((editing?.quality_gates ?? []).map((g) => [g.quality_gate_id, g.action as GateAction])),
  );
  const save = useSave();
  const submit = save.submit(async () => {
    const body: PolicyBody = {
      name: name.trim(),
      description,
      project_tags: splitList(tags),
      quality_gates: Object.entries(links).map(([quality_gate_id, action]) => ({ quality_gate_id, action })),
    };
    if (editing) await api('PUT', `/policy/${editing.id}`, body);
    else await api('POST', '/policy', body);
    onDone();
  });
  const toggle = (id: string, on: boolean) => {
    const next = { ...links };
    if (on) next[id] = 'lock';
    else delete next[id];
    setLinks(next);
  };
  const p = save.problems;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="policy-form-title">
      <h2 id="policy-form-title">{editing ? t('editX', editing.name) : t('newPolicy')}</h2>
      <div className="inline-fields">
        <Field id="policy-name" label={t('name')} problem={p.name}>
          <input id="policy-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="policy-tags" label={t('projectTags')} problem={p.project_tags}>
          <input id="policy-tags" value={tags} onChange={(e) => setTags(e.target.value)} />
        </Field>
        <Field id="policy-description" label={t('descriptionField')} problem={p.description}>
          <input
            id="policy-description"
            maxLength={4000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </Field>
      </div>
      <fieldset>
        <legend>{t('qualityGates')}</legend>
        {gates.length === 0 && <p>{t('none')}</p>}
        {gates.map((g) => (
          <div key={g.id} className="actions">
            <label>
              <input type="checkbox" checked={g.id in links} onChange={(e) => toggle(g.id, e.target.checked)} />{' '}
              {g.name}
            </label>
            {g.id in links && (
              <select
                aria-label={t('actionOf', g.name)}
                value={links[g.id]}
                onChange={(e) => setLinks({ ...links, [g.id]: e.target.value as GateAction })}
              >
                {GATE_ACTIONS.map((a) => (
                  <option key={a} value={a}>
                    {t(`action_${a}`)}
                  </option>
                ))}
              </select>
            )}
          </div>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          {editing ? t('save') : t('create')}
        </button>
        {editing && (
          <button type="button" onClick={onCancel}>
            {t('cancel')}
          </button>
        )}
      </div>
      {save.error && Object.keys(p).length === 0 && <LoadError error={save.error} />}
    </form>
  );
}
