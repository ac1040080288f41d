import { FormEvent, useState } from 'react';
import { api } from '../../api';
import { Pager } from '../../editing';
import { ErrorNote, Field, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { formatDate, useI18n } from '../../i18n';
import { Link, navigate, useLocation } from '../../router';
import type { Page, Sbom } from '../../types';
import { CveReach } from './CveReach';
import { LayerComponents } from './LayerComponents';
import { useLayers } from './layers';
import '../projects/projects.css';

/** SBOMs a page of the list shows (several of a layer may be listed: its newest is its component list). */
const PAGE_SIZE = 25;

/** /components: the layers with an SBOM and a CVE look-up; ?layer= a layer's components; ?cve= a CVE's reach. */
export function ComponentsPage() {
  const { search } = useLocation();
  const layer = search.get('layer');
  const cve = search.get('cve');
  if (layer) return <LayerComponents layerId={layer} />;
  if (cve) return <CveReach cve={cve} />;
  return <SbomLayers />;
}

function SbomLayers() {
  const { t, lang } = useI18n();
  const [page, setPage] = useState(1);
  const sboms = useLoad(() => api<Page<Sbom>>('GET', '/sboms', undefined, { page, limit: PAGE_SIZE }), [page]);
  const layers = useLayers();
  const layerName = (s: Sbom) => layers.data?.get(s.layer_id)?.name ?? s.layer_id.slice(0, 8);
  return (
    <section aria-labelledby="components-title">
      <h1 id="components-title" tabIndex={-1}>
        {t('components')}
      </h1>
      <CveLookup />
      <h2>{t('uploadedSboms')}</h2>
      {sboms.error && <ErrorNote error={sboms.error} />}
      {!sboms.data ? (
        <Loading />
      ) : sboms.data.items.length === 0 ? (
        <p>{t('noSbom')}</p>
      ) : (
        <>
          <table className="grid stack sboms">
            <thead>
              <tr>
                <th scope="col">{t('layer')}</th>
                <th scope="col">{t('sbomFile')}</th>
                <th scope="col">{t('componentsCount')}</th>
                <th scope="col">{t('sbomVulnerabilities')}</th>
                <th scope="col">{t('uploadedAt')}</th>
              </tr>
            </thead>
            <tbody>
              {sboms.data.items.map((s) => (
                <tr key={s.id}>
                  <th scope="row" data-label={t('layer')}>
                    <Link to={`/components?layer=${s.layer_id}`}>
                      {t('layerOfProject', s.project_name, layerName(s))}
                    </Link>
                  </th>
                  <td data-label={t('sbomFile')}>{s.file_name}</td>
                  <td data-label={t('componentsCount')}>{s.components_count}</td>
                  <td data-label={t('sbomVulnerabilities')}>{s.vulnerabilities_count}</td>
                  <td data-label={t('uploadedAt')}>{formatDate(lang, s.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} total={sboms.data.total} limit={PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}

/** Asks which projects and layers a CVE reaches: the answer is /components?cve=…, a link of its own. */
function CveLookup() {
  const { t } = useI18n();
  const [cve, setCve] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const id = cve.trim().toUpperCase();
    if (id) navigate(`/components?cve=${encodeURIComponent(id)}`);
  };
  return (
    <form className="card inline" onSubmit={submit} aria-labelledby="cve-lookup-title">
      <h2 id="cve-lookup-title">{t('cveLookup')}</h2>
      <Field id="cve-id" label={t('cveId')}>
        <input
          id="cve-id"
          required
          maxLength={64}
          placeholder={t('cveIdHint')}
          value={cve}
          onChange={(e) => setCve(e.target.value)}
        />
      </Field>
      <button type="submit">{t('findCve')}</button>
    </form>
  );
}
