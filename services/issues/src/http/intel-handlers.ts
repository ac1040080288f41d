import type { HandlersOf } from '@bulwark/platform';
import type { intelRoutes } from '@bulwark/contracts';
import type { ExploitIntel } from '../intel/exploit-intel';
import { intelFeedStateView, intelSettingsView } from './intel-views';

/** HTTP handlers of the exploit intelligence feeds: they translate, ExploitIntel decides. */
export function intelHandlers(intel: ExploitIntel): HandlersOf<typeof intelRoutes> {
  return {
    getIntelSettings: async () => intelSettingsView(await intel.settings()),
    updateIntelSettings: async (input) => intelSettingsView(await intel.saveSettings(input.body)),
    syncIntel: async () => {
      const { epss, kev } = await intel.syncNow();
      return {
        epss: { records: epss.records, score_date: epss.version, error: epss.error },
        kev: { records: kev.records, catalog_version: kev.version, error: kev.error },
      };
    },
    importIntel: async (input) => {
      const loaded = await intel.importFile(input.query.feed, input.body.path);
      return { feed: input.query.feed, records: loaded.records, version: loaded.version };
    },
    intelStatus: async () => {
      const { settings, feeds } = await intel.status();
      return { settings: intelSettingsView(settings), feeds: feeds.map(intelFeedStateView) };
    },
  };
}
