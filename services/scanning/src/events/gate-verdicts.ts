import { isUuid, Trx } from '@bulwark/platform';
import { ISSUE_EVENTS, onEvents } from '@bulwark/contracts';
import { scanStore } from '../store/scans';

/**
 * Keeps each scan's quality-gate verdict, as the issues service publishes it after ingesting the
 * scan. At least once and in any order is fine: a verdict names its scan and is written to that scan
 * only, and a scan is ingested (so evaluated) once, so a redelivery writes the same verdict again and
 * no verdict of one scan can overwrite another's.
 */
export function keepGateVerdicts() {
  return onEvents([ISSUE_EVENTS.qualityGateEvaluated], async (event, trx: Trx): Promise<void> => {
    const { scan_result_id: scanId, verdict } = event.payload;
    // A scan this installation does not have (another one sharing the bus) has nothing to update.
    if (isUuid(scanId)) await scanStore.setQualityGate(trx, scanId, verdict);
  });
}
