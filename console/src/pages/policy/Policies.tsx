import { useState } from 'react';
import { api } from '../../api';
import { Field } from '../../components';
import { splitList, useSave } from '../../editing';
import { EditableList, EditingForm, SaveButtons, SaveError } from '../editable-list';
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
  const gateName = (id: string) => gates.data?.find((g) => g.id === id)?.name ?? id;
  return (
    <section aria-labelledby="policies-title">
      <h1 id="policies-title" tabIndex={-1}>
        {t('policies')}
      </h1>
      <PolicyTabs />
      <p className="hint">{t('policiesWhat')}</p>
      <EditableList
        list={policies}
        deletePath="/policies"
        form={(f) => <PolicyForm {...f} gates={gates.data ?? []} />}
        columns={[t('name'), t('projectTags'), t('qualityGates'), t('actor')]}
        cells={(p) => (
          <>
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
          </>
        )}
      />
    </section>
  );
}

function PolicyForm({ editing, gates, onDone, onCancel }: EditingForm<Policy> & { gates: QualityGate[] }) {
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
        <SaveButtons save={save} editing={!!editing} onCancel={onCancel} />
      </div>
      <SaveError save={save} />
    </form>
  );
}
