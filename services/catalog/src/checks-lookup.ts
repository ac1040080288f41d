import { AppError, InternalAuth, lazyPeerClient, ModuleContext } from '@bulwark/platform';
import { scanningV1 } from '@bulwark/proto';

export interface CheckRef {
  id: string;
  layerId: string;
  scanSourceId: string;
  securityToolId: string;
}

/** Which checks use given sources, tools or layers: checks belong to the scanning service. */
export interface ChecksLookup {
  using(req: { sourceIds?: string[]; toolIds?: string[]; layerIds?: string[] }): Promise<CheckRef[]>;
}

/**
 * Asks the scanning service over gRPC. The client is made at first use: scanning may start after the
 * catalog. When scanning cannot answer nothing is deleted (503): an unknown answer is not "unused".
 */
export function scanningChecksLookup(ctx: ModuleContext, auth: InternalAuth): ChecksLookup {
  const scanning = lazyPeerClient(ctx, scanningV1.ScanningServiceService, 'scanning', auth);
  return {
    async using(req) {
      try {
        const res = await scanning().checksUsing({
          sourceIds: req.sourceIds ?? [],
          toolIds: req.toolIds ?? [],
          layerIds: req.layerIds ?? [],
        });
        return res.checks;
      } catch (err) {
        if (err instanceof AppError && err.code !== 'internal') throw err;
        throw new AppError(
          'unavailable',
          'Cannot tell whether checks use it: the scanning service did not answer; nothing was deleted',
        );
      }
    },
  };
}

/** "used by checks a, b": the ids of the checks that stand in the way. */
export function usedByMessage(checks: CheckRef[]): string {
  const ids = checks.map((c) => c.id);
  return `used by ${ids.length} check(s): ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''}`;
}
