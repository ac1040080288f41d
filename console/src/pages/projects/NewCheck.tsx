import { useState } from 'react';
import { api } from '../../api';
import { ErrorNote, Field } from '../../components';
import { useSave } from '../../editing';
import { useI18n } from '../../i18n';
import type { Check, CheckCreate, Layer } from '../../types';
import { type Catalog, toolTypeName } from './catalog';

/** A check from the guide's fields: the layer, a tool, a source and its branch; scans start by hand (Run) or by upload. */
export function NewCheck({
  layer,
  catalog,
  onCreated,
}: {
  layer: Layer;
  catalog: Catalog | undefined;
  onCreated: () => void;
}) {
  const { t } = useI18n();
  const [tool, setTool] = useState('');
  const [source, setSource] = useState('');
  const [branch, setBranch] = useState('');
  const save = useSave();
  const { problems } = save;
  const id = (name: string) => `check-${name}-${layer.id}`;
  const submit = save.submit(async () => {
    const body: CheckCreate = {
      layer_id: layer.id,
      security_tool_id: tool,
      scan_source_id: source,
      run_scan_task: { type: 'manual' },
      ...(branch.trim() ? { source_auth: { branch_name: branch.trim() } } : {}),
    };
    await api<Check>('POST', '/check', body);
    setBranch('');
    onCreated();
  });
  const tools = [...(catalog?.tools.values() ?? [])];
  const sources = [...(catalog?.sources.values() ?? [])];
  return (
    <form className="inline" onSubmit={submit} aria-label={`${t('newCheck')}: ${layer.name}`}>
      <Field id={id('tool')} label={t('tool')} problem={problems.security_tool_id}>
        <select id={id('tool')} required value={tool} onChange={(e) => setTool(e.target.value)}>
          <option value="" />
          {tools.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name} ({toolTypeName(t, x)})
            </option>
          ))}
        </select>
      </Field>
      <Field id={id('source')} label={t('source')} problem={problems.scan_source_id}>
        <select
          id={id('source')}
          required
          value={source}
          onChange={(e) => {
            setSource(e.target.value);
            setBranch(catalog?.sources.get(e.target.value)?.settings.branch_name ?? '');
          }}
        >
          <option value="" />
          {sources.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id('branch')} label={t('branch')} problem={problems['source_auth.branch_name']}>
        <input id={id('branch')} maxLength={255} value={branch} onChange={(e) => setBranch(e.target.value)} />
      </Field>
      <button type="submit" disabled={save.busy}>
        {t('newCheck')}
      </button>
      {save.error && <ErrorNote error={save.error} />}
    </form>
  );
}
