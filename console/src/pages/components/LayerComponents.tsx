import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { Pager } from '../../editing';
import { ErrorNote, Field, Loading, SeverityBadge } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import type { Dependency, Layer, Page } from '../../types';
import { componentTypeName } from './component-types';
import { vulnerabilitiesOf, vulnerabilitiesOfComponent } from './vulnerabilities';

/** Components a page shows: each page asks for the vulnerabilities of its own components. */
const PAGE_SIZE = 50;

/** The issue list of a layer's issues naming a library, of one severity (those naming no CVE among them). */
const withoutCve = (layerId: string, libName: string, severity: string) =>
  `/issues?filter[layer]=${layerId}&filter[lib_name]=${encodeURIComponent(libName)}&filter[severity]=${severity}`;

/** A layer's components (its newest SBOM's), with their licences and the vulnerabilities its issues name. */
export function LayerComponents({ layerId }: { layerId: string }) {
  const { t } = useI18n();
  const [page, setPage] = useState(1);
  const [query, setQuery] = useState('');
  const [name, setName] = useState('');
  const layer = useLoad(() => api<Layer>('GET', `/layer/${encodeURIComponent(layerId)}`), [layerId]);
  const deps = useLoad(
    () =>
      api<Page<Dependency>>('GET', '/dependencies', undefined, {
        'filter[layer_id]': layerId,
        'search[name]': name || undefined,
        page,
        limit: PAGE_SIZE,
      }),
    [layerId, name, page],
  );
  const vulns = useLoad(
    () => vulnerabilitiesOf(layerId, deps.data?.items.map((d) => d.name) ?? []),
    [layerId, deps.data],
  );
  const search = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setName(query.trim());
  };
  const title = layer.data ? t('layerOfProject', layer.data.project_code, layer.data.name) : layerId;
  return (
    <section aria-labelledby="layer-components-title">
      <p className="back-links">
        <Link to="/components">{t('backToComponents')}</Link>
        {layer.data && (
          <Link to={`/projects/${encodeURIComponent(layer.data.project_code)}`}>{`← ${layer.data.project_code}`}</Link>
        )}
      </p>
      <h1 id="layer-components-title" tabIndex={-1}>
        {t('componentsOf', title)}
      </h1>
      {layer.error && <ErrorNote error={layer.error} />}
      <form className="card inline" role="search" onSubmit={search}>
        <Field id="component-name" label={t('searchComponent')}>
          <input id="component-name" maxLength={255} value={query} onChange={(e) => setQuery(e.target.value)} />
        </Field>
        <button type="submit">{t('searchComponents')}</button>
      </form>
      {deps.error && <ErrorNote error={deps.error} />}
      {vulns.error && <ErrorNote error={vulns.error} />}
      {!deps.data ? (
        <Loading />
      ) : deps.data.items.length === 0 ? (
        <p>{t('none')}</p>
      ) : (
        <>
          <table className="grid stack dependencies" aria-labelledby="layer-components-title">
            <thead>
              <tr>
                <th scope="col">{t('component')}</th>
                <th scope="col">{t('version')}</th>
                <th scope="col">{t('componentType')}</th>
                <th scope="col">{t('licenses')}</th>
                <th scope="col">{t('vulnerabilities')}</th>
              </tr>
            </thead>
            <tbody>
              {deps.data.items.map((d) => {
                const groups = vulns.data ? vulnerabilitiesOfComponent(vulns.data, d.name, d.version) : [];
                return (
                  <tr key={`${d.name}@${d.version ?? ''}:${d.purl ?? ''}`}>
                    <th scope="row" data-label={t('component')}>
                      {d.name}
                    </th>
                    <td data-label={t('version')}>{d.version ?? '—'}</td>
                    <td data-label={t('componentType')}>{d.type ? componentTypeName(t, d.type) : '—'}</td>
                    <td data-label={t('licenses')}>
                      {d.licenses.length > 0 ? d.licenses.join(', ') : <span className="muted">{t('noLicense')}</span>}
                    </td>
                    <td data-label={t('vulnerabilities')}>
                      {!vulns.data ? (
                        '…'
                      ) : groups.length === 0 ? (
                        <span className="muted">{t('noVulnerabilities')}</span>
                      ) : (
                        <ul className="plain vulns">
                          {groups.map((g) => (
                            <li key={g.cve ?? g.severity}>
                              <SeverityBadge severity={g.severity} />{' '}
                              {g.cve ? (
                                <Link to={`/components?cve=${encodeURIComponent(g.cve)}`}>{g.cve}</Link>
                              ) : (
                                <Link to={withoutCve(layerId, g.libName, g.severity)}>
                                  {t('issuesWithoutCve', g.count)}
                                </Link>
                              )}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager page={page} total={deps.data.total} limit={PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}
