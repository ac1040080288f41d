import { useState } from 'react';
import { api } from '../../api';
import { Field, Loading } from '../../components';
import { DeleteButton, deleteIds, LoadError, useSave } from '../../editing';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import type {
  ConditionBody,
  ConditionType,
  GateAction,
  GateCondition,
  GateOperator,
  Layer,
  Page,
  QualityGate,
} from '../../types';
import { GATE_ACTIONS, GATE_CONDITION_TYPES, GATE_OPERATORS } from '@bulwark/contracts/quality-gates';
import { SaveButtons, SaveError } from '../editable-list';
import { PolicyTabs } from './tabs';

/** Quality gates: each with its conditions and the layers it is linked to. */
export function QualityGatesPage() {
  const { t } = useI18n();
  const gates = useLoad(() => api<Page<QualityGate>>('GET', '/quality-gates', undefined, { limit: 200 }), []);
  // Layers the reader may see, for naming linked layers and linking new ones; without layer rights the ids show.
  const layers = useLoad(
    () =>
      api<Page<Layer>>('GET', '/layers', undefined, { limit: 1000 }).then(
        (r) => r.items,
        () => [],
      ),
    [],
  );
  return (
    <section aria-labelledby="gates-title">
      <h1 id="gates-title" tabIndex={-1}>
        {t('qualityGates')}
      </h1>
      <PolicyTabs />
      <NameForm
        id="new-gate"
        heading={t('newGate')}
        submit={t('create')}
        onSave={async (name) => {
          await api('POST', '/quality-gate', { name });
          gates.reload();
        }}
      />
      {gates.error && <LoadError error={gates.error} />}
      {!gates.data ? (
        !gates.error && <Loading />
      ) : gates.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        gates.data.items.map((g) => <GateCard key={g.id} gate={g} layers={layers.data ?? []} onChange={gates.reload} />)
      )}
    </section>
  );
}

/** A gate's name: a new gate's form shows its heading; the rename form sits inside the gate's card, named by its label. */
function NameForm({
  id,
  heading,
  submit,
  initial = '',
  onSave,
}: {
  id: string;
  heading: string;
  submit: string;
  initial?: string;
  onSave: (name: string) => Promise<void>;
}) {
  const { t } = useI18n();
  const [name, setName] = useState(initial);
  const save = useSave();
  const submitName = save.submit(async () => {
    await onSave(name.trim());
    if (!initial) setName('');
  });
  return (
    <form className={initial ? 'inline' : 'card inline'} onSubmit={submitName} aria-label={heading}>
      {!initial && <h2>{heading}</h2>}
      <Field id={`${id}-name`} label={t('name')} problem={save.problems.name}>
        <input id={`${id}-name`} required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <button type="submit" className="primary" disabled={save.busy}>
        {submit}
      </button>
      {save.error && !save.problems.name && <LoadError error={save.error} />}
    </form>
  );
}

function GateCard({ gate, layers, onChange }: { gate: QualityGate; layers: Layer[]; onChange: () => void }) {
  const { t } = useI18n();
  const [editing, setEditing] = useState<GateCondition>();
  const [unlinkError, setUnlinkError] = useState<Error>();
  // Names a condition in its buttons' labels, as the table reads it.
  const conditionLabel = (c: GateCondition) =>
    [t(`ct_${c.condition_type as ConditionType}`), c.condition_value, t(`op_${c.operator as GateOperator}`), c.value]
      .filter(Boolean)
      .join(' ');
  // A new condition form after each save, so the next one starts from the defaults.
  const [saved, setSaved] = useState(0);
  const layerName = (id: string) => {
    const l = layers.find((x) => x.id === id);
    return l ? `${l.project_code} / ${l.name}` : id;
  };
  return (
    <section className="card" aria-labelledby={`gate-${gate.id}`}>
      <h2 id={`gate-${gate.id}`}>
        {gate.name} <span className="muted">· {t('author', gate.author)}</span>
      </h2>
      <div className="toolbar">
        <NameForm
          id={`rename-${gate.id}`}
          heading={t('renameX', gate.name)}
          submit={t('rename')}
          initial={gate.name}
          onSave={async (name) => {
            await api('PUT', `/quality-gate/${gate.id}`, { name });
            onChange();
          }}
        />
        <DeleteButton
          what={gate.name}
          onDelete={async () => {
            await deleteIds('/quality-gates', [gate.id]);
            onChange();
          }}
        />
      </div>
      <h3>{t('conditions')}</h3>
      {gate.conditions.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <table className="grid">
          <caption className="sr-only">{t('conditionsOf', gate.name)}</caption>
          <thead>
            <tr>
              <th scope="col">{t('conditionType')}</th>
              <th scope="col">{t('conditionValue')}</th>
              <th scope="col">{t('operator')}</th>
              <th scope="col">{t('threshold')}</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {gate.conditions.map((c) => (
              <tr key={c.id}>
                <td>{t(`ct_${c.condition_type as ConditionType}`)}</td>
                <td>{c.condition_value || '—'}</td>
                <td>{t(`op_${c.operator as GateOperator}`)}</td>
                <td>{c.value}</td>
                <td className="actions">
                  <button type="button" onClick={() => setEditing(c)}>
                    {t('editX', conditionLabel(c))}
                  </button>
                  <DeleteButton
                    what={conditionLabel(c)}
                    onDelete={async () => {
                      await deleteIds('/conditions', [c.id]);
                      onChange();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConditionForm
        key={editing?.id ?? `new-${saved}`}
        gate={gate}
        editing={editing}
        onDone={() => {
          setEditing(undefined);
          setSaved(saved + 1);
          onChange();
        }}
        onCancel={() => setEditing(undefined)}
      />
      <h3>{t('linkedLayers')}</h3>
      {gate.layers.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <ul>
          {gate.layers.map((l) => (
            <li key={l.layer_id}>
              {layerName(l.layer_id)} · {t(`action_${l.action as GateAction}`)}{' '}
              <button
                type="button"
                onClick={() => void setLayerLink(l.layer_id, gate.id, null).then(onChange, setUnlinkError)}
              >
                {t('unlinkX', layerName(l.layer_id))}
              </button>
            </li>
          ))}
        </ul>
      )}
      {unlinkError && <LoadError error={unlinkError} />}
      <LinkLayerForm gate={gate} layers={layers} onDone={onChange} />
    </section>
  );
}

/** Adds or edits one condition of a gate, with the route table's types and operators. */
function ConditionForm({
  gate,
  editing,
  onDone,
  onCancel,
}: {
  gate: QualityGate;
  editing?: GateCondition;
  onDone: () => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [form, setForm] = useState({
    condition_type: (editing?.condition_type ?? 'severity') as ConditionType,
    condition_value: editing?.condition_value ?? '',
    operator: (editing?.operator ?? 'not_greater_than') as GateOperator,
    value: editing?.value ?? '0',
  });
  const save = useSave();
  const id = (f: string) => `cond-${gate.id}-${f}`;
  const submit = save.submit(async () => {
    const body: ConditionBody = { quality_gate_id: gate.id, ...form };
    if (editing) await api('PUT', `/condition/${editing.id}`, body);
    else await api('POST', '/condition', body);
    onDone();
  });
  const p = save.problems;
  return (
    <form
      className="inline"
      onSubmit={submit}
      aria-label={editing ? t('editConditionOf', gate.name) : t('newConditionOf', gate.name)}
    >
      <Field id={id('type')} label={t('conditionType')} problem={p.condition_type}>
        <select
          id={id('type')}
          value={form.condition_type}
          onChange={(e) => setForm({ ...form, condition_type: e.target.value as ConditionType })}
        >
          {GATE_CONDITION_TYPES.map((c) => (
            <option key={c} value={c}>
              {t(`ct_${c}`)}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id('value')} label={t('conditionValue')} problem={p.condition_value}>
        <input
          id={id('value')}
          maxLength={255}
          value={form.condition_value}
          aria-describedby={id('hint')}
          onChange={(e) => setForm({ ...form, condition_value: e.target.value })}
        />
      </Field>
      <Field id={id('op')} label={t('operator')} problem={p.operator}>
        <select
          id={id('op')}
          value={form.operator}
          onChange={(e) => setForm({ ...form, operator: e.target.value as GateOperator })}
        >
          {GATE_OPERATORS.map((o) => (
            <option key={o} value={o}>
              {t(`op_${o}`)}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id('threshold')} label={t('threshold')} problem={p.value}>
        <input
          id={id('threshold')}
          type="number"
          min={0}
          required
          value={form.value}
          onChange={(e) => setForm({ ...form, value: e.target.value })}
        />
      </Field>
      <SaveButtons save={save} editing={!!editing} onCancel={onCancel} createLabel={t('addCondition')} />
      <p className="hint" id={id('hint')}>
        {t(`cv_${form.condition_type}`)}
      </p>
      <SaveError save={save} />
    </form>
  );
}

/** POST link-layer replaces a layer's links: read them, change this gate's one, write them all back. */
async function setLayerLink(layerId: string, gateId: string, action: GateAction | null): Promise<void> {
  const state = await api<{ quality_gates: { quality_gate_id: string; action: GateAction }[] }>(
    'GET',
    `/quality-gate/layer/${layerId}`,
  );
  const others = state.quality_gates
    .filter((g) => g.quality_gate_id !== gateId)
    .map(({ quality_gate_id, action: a }) => ({ quality_gate_id, action: a }));
  await api('POST', '/quality-gate/link-layer', {
    layer_id: layerId,
    quality_gates: action ? [...others, { quality_gate_id: gateId, action }] : others,
  });
}

function LinkLayerForm({ gate, layers, onDone }: { gate: QualityGate; layers: Layer[]; onDone: () => void }) {
  const { t } = useI18n();
  const [layer, setLayer] = useState('');
  const [action, setAction] = useState<GateAction>('lock');
  const save = useSave();
  const id = (f: string) => `link-${gate.id}-${f}`;
  const submit = save.submit(async () => {
    await setLayerLink(layer, gate.id, action);
    setLayer('');
    onDone();
  });
  return (
    <form className="inline" onSubmit={submit} aria-label={t('linkLayerOf', gate.name)}>
      <Field id={id('layer')} label={t('layer')}>
        <select id={id('layer')} required value={layer} onChange={(e) => setLayer(e.target.value)}>
          <option value="" />
          {layers.map((l) => (
            <option key={l.id} value={l.id}>
              {l.project_code} / {l.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id('action')} label={t('gateAction')}>
        <select id={id('action')} value={action} onChange={(e) => setAction(e.target.value as GateAction)}>
          {GATE_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {t(`action_${a}`)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={save.busy}>
        {t('linkLayer')}
      </button>
      {save.error && <LoadError error={save.error} />}
    </form>
  );
}
