import type { Db, ServiceImpl } from '@bulwark/platform';
import type { scanningV1 } from '@bulwark/proto';
import { checkStore } from '../store/checks';

export function scanningGrpc(db: Db): ServiceImpl<typeof scanningV1.ScanningServiceService> {
  return {
    async checksUsing(req) {
      const found = await checkStore.using(db, { sourceIds: req.sourceIds, toolIds: req.toolIds, layerIds: req.layerIds });
      return { checks: found.map((c) => ({ id: c.id, layerId: c.layerId, scanSourceId: c.scanSourceId, securityToolId: c.securityToolId })) };
    },
  };
}
