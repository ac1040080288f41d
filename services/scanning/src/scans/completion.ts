import type { Trx } from '@bulwark/platform';
import { SCAN_EVENTS, writeEvent } from '@bulwark/contracts';
import { ScanRecord, scanStore } from '../store/scans';
import type { PullRequestOfScan } from '../domain/pull-request';
import type { ImportSummary } from './report-import';
import type { RescanDiffSummary } from './rescan-diff';

/** The fields every event of a scan starts with (its key is the check id, so a check's scans keep their order). */
export function scanRef(scan: Pick<ScanRecord, 'id' | 'checkId' | 'layerId' | 'projectCode'>) {
  return { scan_result_id: scan.id, check_id: scan.checkId, layer_id: scan.layerId, project_code: scan.projectCode };
}

/** What a stored report leaves on its scan, with its diff against the check's previous scan when it was compared. */
export type StoredReport = Pick<ImportSummary, 'format' | 'findingsCount' | 'severityCounts' | 'digest'> & {
  diff?: RescanDiffSummary;
};

/**
 * Completes a scan whose findings are stored, in the transaction that stored them, and announces it
 * with `scan.completed`: the one way a scan completes, uploaded or run. The event carries what the
 * issues service needs to ingest it (project, layer, the tool's id and name, counts, digest, the diff), so it
 * asks scanning only for the findings and the catalog for nothing about the tool. False when the scan
 * was no longer the caller's to finish (a worker whose lease another replica took).
 */
export async function completeScan(
  trx: Trx,
  scan: Pick<ScanRecord, 'id' | 'checkId' | 'layerId' | 'projectCode'>,
  report: StoredReport,
  tool: { id: string; name: string },
  how: { uploaded?: true; owner?: string; pullRequest?: PullRequestOfScan } = {},
): Promise<boolean> {
  const finished = await scanStore.finish(
    trx,
    scan.id,
    ['parsing'],
    'completed',
    {
      findingsCount: report.findingsCount,
      severityCounts: report.severityCounts,
      reportFormat: report.format,
      findingsDigest: report.digest,
      error: null,
    },
    how.owner,
  );
  if (!finished) return false;
  await writeEvent(trx, SCAN_EVENTS.scanCompleted, scan.checkId, {
    ...scanRef(scan),
    findings_count: report.findingsCount,
    severity_counts: report.severityCounts,
    tool_id: tool.id,
    tool_name: tool.name,
    ...(how.uploaded ? { uploaded: true } : {}),
    findings_digest: report.digest,
    ...(report.diff ? { diff: report.diff } : {}),
    ...(how.pullRequest ? { pull_request: how.pullRequest } : {}),
  });
  return true;
}
