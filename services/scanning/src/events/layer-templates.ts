import { randomUUID } from 'node:crypto';
import { AppError, Db, Logger, Trx } from '@bulwark/platform';
import { CATALOG_EVENTS, onEvents, SCAN_EVENTS, writeEvent } from '@bulwark/contracts';
import type { CatalogGate } from '../catalog-client';
import { CheckRecord, checkStore } from '../store/checks';

/**
 * A layer made from a template gets a copy of the template's checks (groups kept as groups). A check
 * whose tool or source may not be used in the new project is left out, and the log says why. The
 * catalog is asked before the copy's transaction opens; the transaction writes the copies only.
 */
export function copyTemplateChecks(db: Db, catalog: CatalogGate, log: Logger) {
  return onEvents([CATALOG_EVENTS.layerCreated], {
    read: async (event): Promise<CheckRecord[]> => {
      const layer = event.payload;
      if (!layer.template_id) return [];
      const usable: CheckRecord[] = [];
      for (const check of await checkStore.byLayer(db, layer.template_id)) {
        try {
          await catalog.assertUsable(layer.project_code, check.scanSourceId, check.securityToolId);
          usable.push(check);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          log.warn('template check not copied: its tool or source is not usable in the project', {
            templateCheck: check.id,
            layerId: layer.id,
            reason: err.message,
          });
        }
      }
      return usable;
    },
    write: async (event, trx: Trx, usable): Promise<void> => {
      const layer = event.payload;
      if (!layer.template_id) return;
      const groups = new Map<string, string>();
      for (const check of usable) {
        let groupId: string | null = null;
        if (check.groupId) {
          groupId = groups.get(check.groupId) ?? randomUUID();
          if (!groups.has(check.groupId)) {
            groups.set(check.groupId, groupId);
            await checkStore.createGroup(trx, groupId);
          }
        }
        const id = randomUUID();
        await checkStore.insert(
          trx,
          id,
          groupId,
          { ...check, layerId: layer.id, projectCode: layer.project_code },
          check.tag,
        );
        await writeEvent(trx, SCAN_EVENTS.checkCreated, id, {
          check_id: id,
          layer_id: layer.id,
          group_id: groupId,
          from_template_check: check.id,
        });
      }
      log.info('template checks copied', { layerId: layer.id, templateId: layer.template_id, copied: usable.length });
    },
  });
}
