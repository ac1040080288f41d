import { useCallback, useState } from 'react';
import { api } from '../api';
import { splitList, useSave } from '../editing';
import { ErrorNote, Field, Loading } from '../components';
import { useLoad } from '../hooks';
import { formatDate, useI18n } from '../i18n';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import type { Layer, LayerCreate, Page, Project, ProjectCreate, ScanResult } from '../types';
import { layerTypeName, useCatalog } from './projects/catalog';
import { LayerChecks } from './projects/LayerChecks';
import { OpenTrend, ProjectRisk, SeverityCountsRow, VerdictTally } from './projects/ProjectRisk';
import { newestVerdicts, openBySeverity, TREND_WEEKS } from './projects/risk';
import './projects/projects.css';

/** Projects a page of the list shows: each row asks for its own trend, so the page stays short. */
const PAGE_SIZE = 20;

export function ProjectsPage() {
  const { t, lang } = useI18n();
  const { statuses } = useSession();
  const [page, setPage] = useState(1);
  const projects = useLoad(() => api<Page<Project>>('GET', '/projects', undefined, { limit: PAGE_SIZE, page }), [page]);
  const counts = useLoad(() => openBySeverity(statuses), [statuses]);
  const verdicts = useLoad(() => newestVerdicts(), []);
  const verdictsOf = (code: string): ScanResult[] =>
    [...(verdicts.data?.values() ?? [])].filter((s) => s.project_code === code);
  const pages = projects.data ? Math.max(1, Math.ceil(projects.data.total / PAGE_SIZE)) : 1;
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
        <>
          <table className="grid stack projects">
            <thead>
              <tr>
                <th scope="col">{t('project')}</th>
                <th scope="col">{t('openBySeverity')}</th>
                <th scope="col">{t('gatePerLayer')}</th>
                <th scope="col">{t('openTrend', TREND_WEEKS)}</th>
                <th scope="col">{t('tags')}</th>
                <th scope="col">{t('created')}</th>
              </tr>
            </thead>
            <tbody>
              {projects.data.items.map((p) => (
                <tr key={p.code}>
                  <th scope="row" data-label={t('project')}>
                    <Link to={`/projects/${encodeURIComponent(p.code)}`}>{p.name}</Link>{' '}
                    <span className="muted">({p.code})</span>
                  </th>
                  <td data-label={t('openBySeverity')}>
                    {counts.error ? (
                      '—'
                    ) : counts.data ? (
                      <SeverityCountsRow code={p.code} counts={counts.data.get(p.code)} />
                    ) : (
                      '…'
                    )}
                  </td>
                  <td data-label={t('gatePerLayer')}>
                    {verdicts.error ? '—' : verdicts.data ? <VerdictTally scans={verdictsOf(p.code)} /> : '…'}
                  </td>
                  <td data-label={t('openTrend', TREND_WEEKS)}>
                    <OpenTrend code={p.code} />
                  </td>
                  <td data-label={t('tags')}>{p.tags.join(', ') || '—'}</td>
                  <td data-label={t('created')}>{formatDate(lang, p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="hint">{t('duplicatesRule')}</p>
          {pages > 1 && (
            <nav className="pager" aria-label={t('pages')}>
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                {t('previousPage')}
              </button>
              <span>{t('pageOf', page, pages)}</span>
              <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                {t('nextPage')}
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
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
  const catalog = useCatalog();
  // Counts up with each scan uploaded on the page, so the risk summary follows.
  const [scans, setScans] = useState(0);
  const scanned = useCallback(() => setScans((n) => n + 1), []);
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
      {layers.data && <ProjectRisk code={code} layers={layers.data.items} version={scans} />}
      <h2>{t('layers')}</h2>
      {layers.error && <ErrorNote error={layers.error} />}
      {!layers.data ? (
        <Loading />
      ) : layers.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        layers.data.items.map((l) => <LayerChecks key={l.id} layer={l} catalog={catalog.data} onScanned={scanned} />)
      )}
      <NewLayer code={code} onCreated={layers.reload} />
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
              {layerTypeName(t, lt.id, lt.name)}
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
