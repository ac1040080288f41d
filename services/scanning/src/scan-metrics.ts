import { counter, Db, gauge, histogram, onScrape } from '@bulwark/platform';
import { toolType } from '@bulwark/contracts';
import { scanStore } from './store/scans';

const queueDepth = gauge(
  'bulwark_scan_queue_depth',
  'Scans waiting for a worker (read at scrape time; every replica reports the same queue)',
);
const running = gauge('bulwark_scans_running', 'Scans being run or parsed by any worker (read at scrape time)');
const duration = histogram(
  'bulwark_scan_duration_seconds',
  'Time from a worker claiming a scan to its end, by tool type and how it ended',
  [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
  ['tool_type', 'state'],
);
const uploads = counter(
  'bulwark_report_uploads_total',
  'Uploaded reports stored, by how: parsed, or copied from the check\u2019s scan of the same report',
  ['how'],
);

export function countUpload(how: 'parsed' | 'copied'): void {
  uploads.inc({ how });
}

/** How a worker's run of a scan ended: a final state, or the scan left for another worker. */
export type ScanRunEnd = 'completed' | 'failed' | 'stopped' | 'requeued' | 'abandoned';

export function observeScanRun(toolTypeId: number, end: ScanRunEnd, seconds: number): void {
  duration.observe({ tool_type: toolType(toolTypeId)?.name ?? 'unknown', state: end }, seconds);
}

/** Counts the queue at each scrape (two partial indexes make it cheap); returns the stop function. */
export function observeScanQueue(db: Db): () => void {
  return onScrape(async () => {
    const rows = await scanStore.countInFlightByState(db);
    const count = (...states: string[]) =>
      rows.filter((r) => states.includes(r.state)).reduce((n, r) => n + Number(r.count), 0);
    queueDepth.set(count('queued'));
    running.set(count('running', 'parsing'));
  });
}
