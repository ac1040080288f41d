import { HandlersOf, requirePrincipal } from '@bulwark/platform';
import { trackerRoutes } from '@bulwark/contracts';
import type { Trackers } from '../trackers';

/** HTTP handlers of task trackers and the tickets of issues: they translate, Trackers decides. */
export function trackerHandlers(trackers: Trackers): HandlersOf<typeof trackerRoutes> {
  return {
    createTracker: async ({ body }) => trackers.view(await trackers.create(body), 0),
    listTrackers: async ({ query: q }) =>
      trackers.list({ page: q.page, limit: q.limit, name: q.search.name, types: q.filter.type }),
    getTracker: async ({ params }) => trackers.view(await trackers.get(params.id)),
    updateTracker: async ({ params, body }) => trackers.view(await trackers.update(params.id, body)),
    deleteTrackers: async (input) => ({
      results: await trackers.delete(requirePrincipal(input), input.body.ids, input.body.force ?? false),
    }),
    syncTracker: async ({ params }) => trackers.syncOne(params.id),
    createTickets: async (input) =>
      trackers.createTickets(requirePrincipal(input), input.body.tracker_id, input.body.ids, input.body.group_by),
    createIssueTicket: async (input) =>
      trackers.createTicket(requirePrincipal(input), input.params.id, input.body.tracker_id),
    linkIssueTicket: async (input) =>
      trackers.linkTicket(requirePrincipal(input), input.params.id, input.body.tracker_id, input.body.key),
    unlinkIssueTicket: async (input) => trackers.unlink(requirePrincipal(input), input.params.id),
  };
}
