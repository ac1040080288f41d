import { counter, histogram, Trx } from '@bulwark/platform';

const findings = counter(
  'bulwark_ingested_findings_total',
  'Findings of completed scans ingested into issues (counted at commit): rate() gives findings per second',
);
const scans = counter(
  'bulwark_ingested_scans_total',
  "Completed scans ingested into issues (counted at commit), by how their findings were read: all of them one by one, set-wise as an unchanged re-import, or as a rescan's diff",
  ['read'],
);

/** How an ingestion read the scan's findings. */
export type IngestionRead = 'findings' | 'unchanged' | 'diff';
const duration = histogram(
  'bulwark_ingestion_duration_seconds',
  'Time to ingest one scan, from its event to the end of its writes',
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
);

/** Counts an ingestion once its transaction commits: a rolled-back one is redelivered and counted then. */
export function countIngestion(trx: Trx, findingCount: number, seconds: number, read: IngestionRead): void {
  trx.executionPromise.then(
    () => {
      findings.inc(findingCount);
      scans.inc({ read });
      duration.observe(seconds);
    },
    () => undefined,
  );
}
