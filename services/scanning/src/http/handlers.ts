import { HandlersOf, HttpResponse, listPage, requirePrincipal } from '@bulwark/platform';
import { scanningRoutes } from '@bulwark/contracts';
import { FORMATS } from '@bulwark/findings';
import type { Checks } from '../checks';
import type { ScanStats } from '../scan-stats';
import type { Sboms } from '../sboms';
import type { Scans } from '../scans/scans';
import type { CheckRecord } from '../store/checks';
import { checkView, dependencyView, sbomView, scanView } from './views';

/** HTTP handlers, keyed by the route table's operation ids: they translate, Checks and Scans decide. */
export function scanningHandlers(
  checks: Checks,
  scans: Scans,
  stats: ScanStats,
  sboms: Sboms,
): HandlersOf<typeof scanningRoutes> {
  const full = async (check: CheckRecord) => {
    const [group, latest] = await Promise.all([checks.groupOf(check), checks.latestScans([check.id])]);
    return checkView(check, group, latest.get(check.id));
  };
  return {
    createCheck: async (input) => full(await checks.create(requirePrincipal(input), input.body)),
    getCheck: async (input) => full(await checks.visible(requirePrincipal(input), input.params.check_id)),
    updateCheck: async (input) => full(await checks.update(requirePrincipal(input), input.params.check_id, input.body)),
    listChecks: async (input) => {
      const q = input.query;
      const page = await checks.list(requirePrincipal(input), {
        page: q.page,
        limit: q.limit,
        layerId: q.filter.layer_id,
        projectCode: q.filter.project_code,
        groupId: q.filter.group_id,
      });
      const latest = await checks.latestScans(page.items.map((c) => c.id));
      return listPage(q, page, (c) => checkView(c, undefined, latest.get(c.id)));
    },
    deleteChecks: async (input) => ({ results: await checks.delete(requirePrincipal(input), input.body.ids) }),
    deleteCheckGroup: async (input) => ({
      group_id: input.params.group_id,
      deleted_check_ids: await checks.deleteGroup(requirePrincipal(input), input.params.group_id),
    }),

    runCheck: async (input) => {
      const scan = await scans.runCheck(requirePrincipal(input), input.params.check_id);
      return { scan_result_id: scan.id, state: scan.state };
    },
    runLayer: async (input) => ({ scan_results: await scans.runLayer(requirePrincipal(input), input.params.layer_id) }),
    stopCheck: async (input) => {
      const scan = await scans.stopCheck(requirePrincipal(input), input.params.check_id);
      return { scan_result_id: scan.id, state: scan.state };
    },
    listReportFormats: async () => ({
      items: FORMATS.map((f) => ({ id: f.id, title: f.title, tested_with: f.testedWith })),
    }),
    uploadCheckResults: async (input) => {
      const { dry_run: dryRun, ...query } = input.query;
      if (dryRun) return scans.dryRun(requirePrincipal(input), input.params.check_id, input.body, query);
      const scan = await scans.upload(requirePrincipal(input), input.params.check_id, input.body, query);
      return { scan_result_id: scan.id, state: scan.state };
    },

    listScanResults: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await scans.list(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          checkId: q.filter.check_id,
          layerId: q.filter.layer_id,
          projectCode: q.filter.project_code,
          state: q.filter.state,
          createdFrom: q.filter.created_at_start,
          createdTo: q.filter.created_at_end,
          updatedFrom: q.filter.updated_at_start,
          updatedTo: q.filter.updated_at_end,
        }),
        scanView,
      );
    },
    setCheckComparison: async (input) =>
      full(await checks.setComparison(requirePrincipal(input), input.params.check_id, input.body)),
    scanResultIssueStats: async (input) => stats.forResult(requirePrincipal(input), input.params.result_id),
    compareScanResults: async (input) => stats.compare(requirePrincipal(input), input.query.first, input.query.second),
    checkScanHistory: async (input) => stats.history(requirePrincipal(input), input.params.check_id, input.query),
    uploadLayerSbom: async (input) =>
      sbomView(await sboms.upload(requirePrincipal(input), input.params.layer_id, input.body, input.query.file_name)),
    listSboms: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await sboms.list(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          projectCode: q.filter.project_code,
          search: q.search,
        }),
        sbomView,
      );
    },
    listDependencies: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await sboms.dependencies(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          layerId: q.filter.layer_id,
          name: q.search.name,
          projectName: q.search.project_name,
          type: q.search.type,
          version: q.search.version,
        }),
        dependencyView,
      );
    },
    dependencyFilters: async (input) => {
      const layers = input.query.filter.layer_ids;
      return sboms.dependencyFilters(requirePrincipal(input), layers === undefined ? undefined : [layers].flat());
    },
    listScanFindings: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await scans.findings(requirePrincipal(input), input.params.result_id, {
          page: q.page,
          limit: q.limit,
          severity: q.filter.severity,
          notIn: q.filter.not_in,
        }),
        (f) => f,
      );
    },
    scanResultFilters: async (input) => {
      const q = input.query;
      const checks = q.filter.checks;
      return scans.filterValues(requirePrincipal(input), {
        checkIds: checks === undefined ? undefined : [checks].flat(),
        createdFrom: q.filter.created_at_start,
        createdTo: q.filter.created_at_end,
        updatedFrom: q.filter.updated_at_start,
        updatedTo: q.filter.updated_at_end,
      });
    },
    getScanResult: async (input) => scanView(await scans.get(requirePrincipal(input), input.params.result_id)),
    downloadScanReport: async (input) => {
      const report = await scans.report(requirePrincipal(input), input.params.result_id);
      return new HttpResponse(200, report.bytes, {
        'content-type': report.contentType,
        'content-disposition': `attachment; filename="${report.fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
      });
    },
  };
}
