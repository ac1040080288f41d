import { ErrorNote, Loading } from '../../components';
import { useLoad } from '../../hooks';
import { useI18n } from '../../i18n';
import { Link } from '../../router';
import { useLayers } from './layers';
import { cveReach } from './vulnerabilities';

/** The projects and layers whose issues name a CVE, with the components it is found in. */
export function CveReach({ cve }: { cve: string }) {
  const { t } = useI18n();
  const found = useLoad(() => cveReach(cve), [cve]);
  const layers = useLayers();
  return (
    <section aria-labelledby="cve-title">
      <p className="back-links">
        <Link to="/components">{t('backToComponents')}</Link>
      </p>
      <h1 id="cve-title" tabIndex={-1}>
        {t('cveReach', cve)}
      </h1>
      {found.error && <ErrorNote error={found.error} />}
      {!found.data ? (
        <Loading />
      ) : found.data.length === 0 ? (
        <p>{t('cveNotFound', cve)}</p>
      ) : (
        <>
          <p>{t('cveOriginals')}</p>
          <table className="grid stack cve-reach" aria-labelledby="cve-title">
            <thead>
              <tr>
                <th scope="col">{t('project')}</th>
                <th scope="col">{t('layer')}</th>
                <th scope="col">{t('affectedComponents')}</th>
                <th scope="col">{t('issuesCount')}</th>
              </tr>
            </thead>
            <tbody>
              {found.data.map((r) => {
                const layer = layers.data?.get(r.layerId)?.name ?? r.layerId.slice(0, 8);
                const issues = `/issues?filter[cve]=${encodeURIComponent(cve)}&filter[layer]=${r.layerId}`;
                return (
                  <tr key={r.layerId}>
                    <th scope="row" data-label={t('project')}>
                      <Link to={`/projects/${encodeURIComponent(r.projectCode)}`}>{r.projectCode}</Link>
                    </th>
                    <td data-label={t('layer')}>
                      <Link to={`/components?layer=${r.layerId}`}>{layer}</Link>
                    </td>
                    <td data-label={t('affectedComponents')}>{r.components.join(', ') || '—'}</td>
                    <td data-label={t('issuesCount')}>
                      <Link to={issues} label={t('openIssuesOfCve', r.issues, cve, layer)}>
                        {String(r.issues)}
                      </Link>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
