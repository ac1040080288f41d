import { Fragment, useCallback, useEffect, useState } from 'react';
import { api } from '../../api';
import { ErrorNote } from '../../components';
import { useLoad } from '../../hooks';
import { formatDate, MessageKey, useI18n } from '../../i18n';
import { Link } from '../../router';
import type { Check, Layer, Page, ScanResult } from '../../types';
import { GateVerdict } from '../Dashboard';
import { Catalog, checkName, layerTypeName, runnable } from './catalog';
import { NewCheck } from './NewCheck';
import { ScanHistory } from './ScanHistory';
import { UploadReport } from './UploadReport';

/** The scan states a stop applies to (POST /check/{id}/stop); Run is offered otherwise. */
const IN_FLIGHT: readonly ScanResult['state'][] = ['queued', 'running', 'parsing'];

/** What a check's row has open below it: its scan history, or the upload of a report. */
type Panel = { checkId: string; kind: 'history' | 'upload' };
/** The buttons that open a panel, in their order. */
const PANELS: [Panel['kind'], MessageKey][] = [
  ['upload', 'uploadReport'],
  ['history', 'scanHistory'],
];

export function LayerChecks({
  layer,
  catalog,
  onScanned,
}: {
  layer: Layer;
  catalog: Catalog | undefined;
  /** A scan of the layer completed here (an upload, or its verdict came): the project's risk is read again. */
  onScanned: () => void;
}) {
  const { t } = useI18n();
  const checks = useLoad(
    () => api<Page<Check>>('GET', '/checks', undefined, { 'filter[layer_id]': layer.id, limit: 100 }),
    [layer.id],
  );
  const [message, setMessage] = useState<string>();
  const [panel, setPanel] = useState<Panel>();
  const { reload } = checks;
  const scanned = useCallback(() => {
    reload();
    onScanned();
  }, [reload, onScanned]);
  const inFlight = checks.data?.items.some((c) => c.last_scan && IN_FLIGHT.includes(c.last_scan.state)) ?? false;
  // Live progress: the layer's checks are read again while one of them scans, and no longer after.
  useEffect(() => {
    if (!inFlight) return undefined;
    const timer = window.setInterval(reload, 2000);
    return () => window.clearInterval(timer);
  }, [inFlight, reload]);
  const act = async (id: string, action: 'run' | 'stop') => {
    try {
      await api('POST', `/check/${id}/${action}`);
      setMessage(t(action === 'run' ? 'runQueued' : 'stopRequested'));
      reload();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  const toggle = (checkId: string, kind: Panel['kind']) =>
    setPanel(panel?.checkId === checkId && panel.kind === kind ? undefined : { checkId, kind });

  return (
    <section className="card" aria-labelledby={`layer-${layer.id}`}>
      <h3 id={`layer-${layer.id}`}>
        {layer.name} <span className="muted">· {layerTypeName(t, layer.layer_type_id, layer.layer_type_name)}</span>
      </h3>
      <p>
        <Link to={`/components?layer=${layer.id}`} label={t('layerComponentsLinkOf', layer.name)}>
          {t('layerComponentsLink')}
        </Link>
      </p>
      {message && <p role="status">{message}</p>}
      {checks.error && <ErrorNote error={checks.error} />}
      {checks.data &&
        (checks.data.items.length === 0 ? (
          <p>{t('none')}</p>
        ) : (
          <table className="grid stack checks">
            <thead>
              <tr>
                <th scope="col">{t('check')}</th>
                <th scope="col">{t('lastScan')}</th>
                <th scope="col">{t('gate')}</th>
                <th scope="col">{t('actions')}</th>
              </tr>
            </thead>
            <tbody>
              {checks.data.items.map((c) => {
                const name = checkName(c, catalog);
                const open = panel?.checkId === c.id ? panel.kind : undefined;
                const scan = c.last_scan;
                return (
                  <Fragment key={c.id}>
                    <tr>
                      <th scope="row" data-label={t('check')}>
                        {name}
                      </th>
                      <td data-label={t('lastScan')}>{scan ? <ScanState scan={scan} /> : '—'}</td>
                      <td data-label={t('gate')}>{scan ? <GateVerdict scan={scan} /> : '—'}</td>
                      <td className="actions" data-label={t('actions')}>
                        {scan && IN_FLIGHT.includes(scan.state) ? (
                          <button type="button" onClick={() => void act(c.id, 'stop')} aria-label={t('stopX', name)}>
                            {t('stop')}
                          </button>
                        ) : (
                          runnable(c, catalog) && (
                            <button type="button" onClick={() => void act(c.id, 'run')} aria-label={t('runX', name)}>
                              {t('run')}
                            </button>
                          )
                        )}
                        {PANELS.map(([kind, label]) => (
                          <button
                            key={kind}
                            type="button"
                            aria-expanded={open === kind}
                            aria-controls={open === kind ? `panel-${c.id}` : undefined}
                            aria-label={`${t(label)}: ${name}`}
                            onClick={() => toggle(c.id, kind)}
                          >
                            {t(label)}
                          </button>
                        ))}
                      </td>
                    </tr>
                    {open && (
                      <tr className="panel-row">
                        <td colSpan={4} id={`panel-${c.id}`}>
                          {open === 'upload' ? (
                            <UploadReport checkId={c.id} label={name} onUploaded={scanned} />
                          ) : (
                            <ScanHistory checkId={c.id} label={name} />
                          )}
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        ))}
      <p>
        <Link to={`/issues?filter[layer]=${layer.id}`}>{t('issuesOfLayer', layer.name)}</Link>
      </p>
      <NewCheck layer={layer} catalog={catalog} onCreated={reload} />
    </section>
  );
}

/** A scan's state in the reader's language; a running one as a progress bar, a failed one with the API's reason. */
function ScanState({ scan }: { scan: ScanResult }) {
  const { t, lang } = useI18n();
  if (scan.state === 'running')
    return (
      <progress max={100} value={scan.progress} aria-label={t('scanning', scan.progress)}>
        {scan.progress}%
      </progress>
    );
  return (
    <>
      <span className={`state state-${scan.state}`}>{t(`state_${scan.state}`)}</span> ·{' '}
      {formatDate(lang, scan.created_at)}
      {scan.state === 'failed' && scan.error && (
        <span className="reason">
          {t('failedBecause')} {/* The scanning service's own words, in English. */}
          <span lang="en">{scan.error}</span>
        </span>
      )}
    </>
  );
}
