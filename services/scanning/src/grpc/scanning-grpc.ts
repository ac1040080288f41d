import { AppError, Db, isUuid, notFound, ServiceImpl } from '@bulwark/platform';
import { scanningV1 } from '@bulwark/proto';
import { checkStore } from '../store/checks';
import { ScanFindings } from '../scans/scan-findings';
import { rescanDiffStore } from '../store/rescan-diffs';
import { sbomStore } from '../store/sboms';
import { scanStore } from '../store/scans';

const DEFAULT_CHUNK = 500;
const MAX_CHUNK = 5000;

export function scanningGrpc(db: Db): ServiceImpl<typeof scanningV1.ScanningServiceService> {
  const scanOrThrow = async (id: string) => {
    const scan = isUuid(id) ? await scanStore.get(db, id) : undefined;
    if (!scan) throw notFound(`Scan result ${id}`);
    return scan;
  };
  /** One side of a scan's diff against its base: the findings it added (its own) or those of the base it no longer has. */
  async function* diffSide(scanId: string, selection: scanningV1.FindingSelection, afterSeq: number, size: number) {
    const diff = await rescanDiffStore.diff(db, scanId);
    if (!diff) throw new AppError('conflict', `Scan result ${scanId} has no diff against a previous scan`);
    const added = selection === scanningV1.FindingSelection.FINDING_SELECTION_ADDED;
    const findings = await ScanFindings.of(db, added ? scanId : diff.baseScanId);
    const seqs = (added ? diff.added : diff.vanished).filter((seq) => seq > afterSeq);
    for (let i = 0; i < seqs.length; i += size) {
      const rows = await findings.at(seqs.slice(i, i + size));
      if (rows.length) yield { lastSeq: rows[rows.length - 1].seq, findingsJson: rows.map((r) => r.findingJson) };
    }
  }

  return {
    async checksUsing(req) {
      const found = await checkStore.using(db, {
        sourceIds: req.sourceIds,
        toolIds: req.toolIds,
        layerIds: req.layerIds,
      });
      return {
        checks: found.map((c) => ({
          id: c.id,
          layerId: c.layerId,
          scanSourceId: c.scanSourceId,
          securityToolId: c.securityToolId,
        })),
      };
    },

    async *streamFindings(req) {
      const scan = await scanOrThrow(req.scanResultId);
      if (scan.state !== 'completed')
        throw new AppError('conflict', `Scan result ${scan.id} is ${scan.state}, not completed`);
      const size = Math.min(MAX_CHUNK, req.chunkSize > 0 ? req.chunkSize : DEFAULT_CHUNK);
      if (req.selection !== scanningV1.FindingSelection.FINDING_SELECTION_ALL) {
        yield* diffSide(scan.id, req.selection, req.afterSeq, size);
        return;
      }
      const findings = await ScanFindings.of(db, scan.id);
      const last = findings.lastSeq;
      // Sequence numbers are dense from 1, so each range holds a full chunk but the last; a gap would only shorten one.
      for (let after = req.afterSeq; after < last; after += size) {
        const rows = await findings.range(after, size);
        if (rows.length) yield { lastSeq: rows[rows.length - 1].seq, findingsJson: rows.map((r) => r.findingJson) };
      }
    },

    async getScan(req) {
      const s = await scanOrThrow(req.scanResultId);
      return {
        id: s.id,
        checkId: s.checkId,
        layerId: s.layerId,
        projectCode: s.projectCode,
        securityToolId: s.securityToolId,
        toolTypeId: s.toolTypeId,
        kind: s.kind,
        state: s.state,
        findingsCount: s.findingsCount ?? 0,
        createdAt: s.createdAt,
        finishedAt: s.finishedAt ?? '',
      };
    },

    async countScansInFlight() {
      return { count: await scanStore.countInFlight(db) };
    },

    async getLayerSbom(req) {
      const found = isUuid(req.layerId) ? await sbomStore.latestForLayer(db, req.layerId) : undefined;
      if (!found) throw notFound(`An SBOM of layer ${req.layerId}`);
      return {
        sbomId: found.sbom.id,
        fileName: found.sbom.fileName,
        createdAt: found.sbom.createdAt,
        components: found.components.map((c) => ({
          name: c.name,
          version: c.version ?? '',
          type: c.type ?? '',
          purl: c.purl ?? '',
        })),
      };
    },
  };
}
