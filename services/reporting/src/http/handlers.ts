import { HandlersOf, listPage, requirePrincipal } from '@bulwark/platform';
import { reportingRoutes } from '@bulwark/contracts';
import type { Reports } from '../reports';
import { fileResponse, reportView } from './views';

/** HTTP handlers, keyed by the route table's operation ids: they translate, Reports decides. */
export function reportingHandlers(reports: Reports): HandlersOf<typeof reportingRoutes> {
  return {
    createReport: async (input) => reportView(await reports.create(requirePrincipal(input), input.body)),
    listReports: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await reports.list(requirePrincipal(input), {
          page: q.page,
          limit: q.limit,
          name: q.search.name,
          state: q.filter.state,
          type: q.filter.type,
        }),
        reportView,
      );
    },
    getReport: async (input) => reportView(await reports.get(requirePrincipal(input), input.params.id)),
    updateReport: async (input) =>
      reportView(await reports.rename(requirePrincipal(input), input.params.id, input.body.data.name)),
    deleteReports: async (input) => ({ results: await reports.delete(requirePrincipal(input), input.body.ids) }),
    downloadReport: async (input) =>
      fileResponse(await reports.download(requirePrincipal(input), input.params.id, input.query.format)),
    downloadSummaryReport: async (input) => {
      const q = input.query;
      return fileResponse(
        await reports.summaryNow(requirePrincipal(input), {
          format: q.format,
          projectCodes: q.filter.project_code ?? [],
          from: q.filter.created_at_start,
          to: q.filter.created_at_end,
        }),
      );
    },
  };
}
