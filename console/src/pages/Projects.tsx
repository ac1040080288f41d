import { useEffect, useState } from 'react';
import { api } from '../api';
import { splitList, useSave } from '../editing';
import { ErrorNote, Field, Loading } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import { Link, navigate } from '../router';
import { GateVerdict } from './Dashboard';
import type {
  Check,
  CheckCreate,
  CheckHistory,
  Layer,
  LayerCreate,
  Page,
  Project,
  ProjectCreate,
  ScanResult,
  Source,
  Tool,
} from '../types';
import { CompareScans } from './CompareScans';

export function ProjectsPage() {
  const { t } = useI18n();
  const projects = useLoad(() => api<Page<Project>>('GET', '/projects', undefined, { limit: 200 }), []);
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title" tabIndex={-1}>
        {t('projects')}
      </h1>
      <NewProject onCreated={(code) => navigate(`/projects/${encodeURIComponent(code)}`)} />
      {projects.error && <ErrorNote error={projects.error} />}
      {!projects.data ? (
        <Loading />
      ) : projects.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">{t('code')}</th>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('tags')}</th>
              <th scope="col">{t('created')}</th>
            </tr>
          </thead>
          <tbody>
            {projects.data.items.map((p) => (
              <tr key={p.code}>
                <td>
                  <Link to={`/projects/${encodeURIComponent(p.code)}`}>{p.code}</Link>
                </td>
                <td>{p.name}</td>
                <td>{p.tags.join(', ')}</td>
                <td>
                  <DateCell iso={p.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DateCell({ iso }: { iso: string | null }) {
  const { lang } = useI18n();
  return <>{formatDate(lang, iso)}</>;
}

function NewProject({ onCreated }: { onCreated: (code: string) => void }) {
  const { t } = useI18n();
  const [form, setForm] = useState({ code: '', name: '', tags: '' });
  const save = useSave();
  const { problems } = save;
  const submit = save.submit(async () => {
    const body: ProjectCreate = { code: form.code.trim(), name: form.name.trim(), tags: splitList(form.tags) };
    const created = await api<Project>('POST', '/project', body);
    onCreated(created.code);
  });
  const input = (key: keyof typeof form, label: string, required: boolean) => (
    <Field id={`project-${key}`} label={label} problem={problems[key]}>
      <input
        id={`project-${key}`}
        required={required}
        value={form[key]}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
        aria-invalid={problems[key] ? true : undefined}
      />
    </Field>
  );
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="new-project-title">
      <h2 id="new-project-title">{t('newProject')}</h2>
      {input('code', t('code'), true)}
      {input('name', t('name'), true)}
      {input('tags', t('tags'), false)}
      <button type="submit" className="primary" disabled={save.busy}>
        {t('create')}
      </button>
      {save.error && <ErrorNote error={save.error} />}
    </form>
  );
}

export function ProjectPage({ code }: { code: string }) {
  const { t } = useI18n();
  const project = useLoad(() => api<Project>('GET', `/project/${encodeURIComponent(code)}`), [code]);
  const layers = useLoad(
    () => api<Page<Layer>>('GET', '/layers', undefined, { 'filter[project_code]': code, limit: 100 }),
    [code],
  );
  if (project.error) return <ErrorNote error={project.error} />;
  if (!project.data) return <Loading />;
  return (
    <section aria-labelledby="project-title">
      <p>
        <Link to="/projects">← {t('projects')}</Link>
      </p>
      <h1 id="project-title" tabIndex={-1}>
        {project.data.name} <span className="muted">({project.data.code})</span>
      </h1>
      {project.data.description && <p>{project.data.description}</p>}
      <NewLayer code={code} onCreated={layers.reload} />
      <h2>{t('layers')}</h2>
      {layers.error && <ErrorNote error={layers.error} />}
      {!layers.data ? (
        <Loading />
      ) : layers.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        layers.data.items.map((l) => <LayerChecks key={l.id} layer={l} />)
      )}
    </section>
  );
}

function NewLayer({ code, onCreated }: { code: string; onCreated: () => void }) {
  const { t } = useI18n();
  const types = useLoad(() => api<Page<{ id: number; name: string }>>('GET', '/layer-types'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState('');
  const save = useSave();
  const submit = save.submit(async () => {
    const body: LayerCreate = { name: name.trim(), project_code: code, layer_type_id: Number(type) };
    await api<Layer>('POST', '/layer', body);
    setName('');
    onCreated();
  });
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="new-layer-title">
      <h2 id="new-layer-title">{t('newLayer')}</h2>
      <Field id="layer-name" label={t('name')}>
        <input id="layer-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="layer-type" label={t('layerType')}>
        <select id="layer-type" required value={type} onChange={(e) => setType(e.target.value)}>
          <option value="" />
          {types.data?.items.map((lt) => (
            <option key={lt.id} value={lt.id}>
              {lt.name}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" className="primary" disabled={save.busy}>
        {t('create')}
      </button>
      {save.error && <ErrorNote error={save.error} />}
    </form>
  );
}

/** The scan states a stop applies to (POST /check/{id}/stop); Run is offered otherwise. */
const IN_FLIGHT: readonly ScanResult['state'][] = ['queued', 'running', 'parsing'];

function LayerChecks({ layer }: { layer: Layer }) {
  const { t, lang } = useI18n();
  const checks = useLoad(
    () => api<Page<Check>>('GET', '/checks', undefined, { 'filter[layer_id]': layer.id, limit: 100 }),
    [layer.id],
  );
  const [message, setMessage] = useState<string>();
  const [open, setOpen] = useState<string>();
  const { reload } = checks;
  const inFlight = checks.data?.items.some((c) => c.last_scan && IN_FLIGHT.includes(c.last_scan.state)) ?? false;
  // Live progress: the layer's checks are read again while one of them scans, and no longer after.
  useEffect(() => {
    if (!inFlight) return undefined;
    const timer = window.setInterval(reload, 2000);
    return () => window.clearInterval(timer);
  }, [inFlight, reload]);
  const stop = async (id: string) => {
    try {
      await api('POST', `/check/${id}/stop`);
      setMessage(t('stopRequested'));
      checks.reload();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  const run = async (id: string) => {
    try {
      await api('POST', `/check/${id}/run`);
      setMessage(t('runQueued'));
      checks.reload();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby={`layer-${layer.id}`}>
      <h3 id={`layer-${layer.id}`}>
        {layer.name} <span className="muted">· {layer.layer_type_name}</span>
      </h3>
      {message && <p role="status">{message}</p>}
      {checks.error && <ErrorNote error={checks.error} />}
      {checks.data &&
        (checks.data.items.length === 0 ? (
          <p>{t('none')}</p>
        ) : (
          <table className="grid">
            <thead>
              <tr>
                <th scope="col">{t('check')}</th>
                <th scope="col">{t('lastScan')}</th>
                <th scope="col">{t('gate')}</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {checks.data.items.map((c) => (
                <tr key={c.id}>
                  <td className="mono">{c.taginfo?.tag_name ?? c.id.slice(0, 8)}</td>
                  <td>
                    {!c.last_scan ? (
                      '—'
                    ) : c.last_scan.state === 'running' ? (
                      <progress max={100} value={c.last_scan.progress} aria-label={t('scanning', c.last_scan.progress)}>
                        {c.last_scan.progress}%
                      </progress>
                    ) : (
                      `${c.last_scan.state} · ${formatDate(lang, c.last_scan.created_at)}`
                    )}
                  </td>
                  <td>{c.last_scan ? <GateVerdict scan={c.last_scan} /> : '—'}</td>
                  <td className="actions">
                    {c.last_scan && IN_FLIGHT.includes(c.last_scan.state) ? (
                      <button type="button" onClick={() => void stop(c.id)}>
                        {t('stop')}
                      </button>
                    ) : (
                      <button type="button" onClick={() => void run(c.id)}>
                        {t('run')}
                      </button>
                    )}
                    <button
                      type="button"
                      aria-expanded={open === c.id}
                      onClick={() => setOpen(open === c.id ? undefined : c.id)}
                    >
                      {t('scanHistory')}
                    </button>
                    {open === c.id && <ScanHistory checkId={c.id} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <p>
        <Link to={`/issues?filter[layer]=${layer.id}`}>{t('issues')}</Link>
      </p>
      <NewCheck layer={layer} onCreated={reload} />
    </section>
  );
}

function ScanHistory({ checkId }: { checkId: string }) {
  const { t, lang } = useI18n();
  const history = useLoad(() => api<CheckHistory>('GET', `/scan-results/stats/${checkId}`), [checkId]);
  if (history.error) return <ErrorNote error={history.error} />;
  if (!history.data) return <Loading />;
  return (
    <>
      <table className="grid nested">
        <thead>
          <tr>
            <th scope="col">{t('created')}</th>
            <th scope="col">{t('findings')}</th>
            <th scope="col">{t('newIssues')}</th>
            <th scope="col">{t('fixed')}</th>
          </tr>
        </thead>
        <tbody>
          {history.data.items.map((h) => (
            <tr key={h.scan_result_id}>
              <td>
                <Link to={`/issues?filter[scan]=${h.scan_result_id}`}>{formatDate(lang, h.created_at)}</Link>
              </td>
              <td>{h.findings_count ?? '—'}</td>
              <td>{h.new}</td>
              <td>{h.fixed}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {history.data.items.length > 1 && <CompareScans checkId={checkId} scans={history.data.items} />}
    </>
  );
}

/** A check from the guide's fields: the layer, a tool, a source and its branch; scans start by hand (Run). */
function NewCheck({ layer, onCreated }: { layer: Layer; onCreated: () => void }) {
  const { t } = useI18n();
  const tools = useLoad(() => api<Page<Tool>>('GET', '/tools', undefined, { limit: 200 }), []);
  const sources = useLoad(() => api<Page<Source>>('GET', '/sources', undefined, { limit: 200 }), []);
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
  return (
    <form className="inline" onSubmit={submit} aria-label={`${t('newCheck')}: ${layer.name}`}>
      <Field id={id('tool')} label={t('tool')} problem={problems.security_tool_id}>
        <select id={id('tool')} required value={tool} onChange={(e) => setTool(e.target.value)}>
          <option value="" />
          {tools.data?.items.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name} ({x.type_name})
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
            setBranch(sources.data?.items.find((x) => x.id === e.target.value)?.settings.branch_name ?? '');
          }}
        >
          <option value="" />
          {sources.data?.items.map((x) => (
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
