import { HandlersOf, requirePrincipal } from '@bulwark/platform';
import { trackerRoutes } from '@bulwark/contracts';
import type { Trackers } from '../trackers';
import { ticketView, trackerView } from './views';

/** HTTP handlers of task trackers and the tickets of issues: they translate, Trackers decides. */
export function trackerHandlers(trackers: Trackers): HandlersOf<typeof trackerRoutes> {
  return {
    createTracker: async (input) => trackerView(await trackers.create(requirePrincipal(input), input.body), 0),
    listTrackers: async (input) => {
      const { page, limit, search, filter } = input.query;
      const found = await trackers.list(requirePrincipal(input), {
        page,
        limit,
        name: search.name,
        types: filter.type,
      });
      return { items: found.items.map((t) => trackerView(t.tracker, t.tickets)), total: found.total, page, limit };
    },
    getTracker: async (input) => {
      const tracker = await trackers.get(requirePrincipal(input), input.params.id);
      return trackerView(tracker, await trackers.ticketCount(tracker.id));
    },
    updateTracker: async (input) => {
      const tracker = await trackers.update(requirePrincipal(input), input.params.id, input.body);
      return trackerView(tracker, await trackers.ticketCount(tracker.id));
    },
    deleteTrackers: async (input) => ({
      results: await trackers.delete(requirePrincipal(input), input.body.ids, input.body.force ?? false),
    }),
    syncTracker: async (input) => trackers.syncOne(requirePrincipal(input), input.params.id),
    createTickets: async (input) => {
      const { results, tickets } = await trackers.createTickets(
        requirePrincipal(input),
        input.body.tracker_id,
        input.body.ids,
        input.body.group_by,
      );
      return { results, tickets: tickets.map((t) => ({ ...ticketView(t.ticket), issue_ids: t.issueIds })) };
    },
    createIssueTicket: async (input) =>
      ticketView(await trackers.createTicket(requirePrincipal(input), input.params.id, input.body.tracker_id)),
    linkIssueTicket: async (input) =>
      ticketView(
        await trackers.linkTicket(requirePrincipal(input), input.params.id, input.body.tracker_id, input.body.key),
      ),
    unlinkIssueTicket: async (input) => trackers.unlink(requirePrincipal(input), input.params.id),
  };
}
