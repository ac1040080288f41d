import { AppError, Db, isUuid, notFound, ServiceImpl } from '@bulwark/platform';
import type { scanningV1 } from '@bulwark/proto';
import { checkStore } from '../store/checks';
import { findingStore } from '../store/findings';
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
      const holder = await findingStore.holder(db, scan.id);
      const last = await findingStore.lastSeq(db, holder);
      // Sequence numbers are dense from 1, so each range holds a full chunk but the last; a gap would only shorten one.
      for (let after = req.afterSeq; after < last; after += size) {
        const rows = await findingStore.chunk(db, holder, after, size);
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
