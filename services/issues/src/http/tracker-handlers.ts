import { HandlersOf, requirePrincipal } from '@bulwark/platform';
import { trackerRoutes } from '@bulwark/contracts';
import type { TrackerUseCases } from '../trackers/use-cases';
import { ticketView, trackerView } from './views';

/** HTTP handlers of task trackers and the tickets of issues: they translate, the tracker use cases decide. */
export function trackerHandlers({
  settings,
  tickets,
  sync,
}: Omit<TrackerUseCases, 'push'>): HandlersOf<typeof trackerRoutes> {
  return {
    createTracker: async (input) => trackerView(await settings.create(requirePrincipal(input), input.body), 0),
    listTrackers: async (input) => {
      const { page, limit, search, filter } = input.query;
      const found = await settings.list(requirePrincipal(input), {
        page,
        limit,
        name: search.name,
        types: filter.type,
      });
      return { items: found.items.map((t) => trackerView(t.tracker, t.tickets)), total: found.total, page, limit };
    },
    getTracker: async (input) => {
      const tracker = await settings.get(requirePrincipal(input), input.params.id);
      return trackerView(tracker, await settings.ticketCount(tracker.id));
    },
    updateTracker: async (input) => {
      const tracker = await settings.update(requirePrincipal(input), input.params.id, input.body);
      return trackerView(tracker, await settings.ticketCount(tracker.id));
    },
    deleteTrackers: async (input) => ({
      results: await settings.delete(requirePrincipal(input), input.body.ids, input.body.force ?? false),
    }),
    syncTracker: async (input) => sync.syncOne(requirePrincipal(input), input.params.id),
    createTickets: async (input) => {
      const { results, tickets: created } = await tickets.createTickets(
        requirePrincipal(input),
        input.body.tracker_id,
        input.body.ids,
        input.body.group_by,
      );
      return { results, tickets: created.map((t) => ({ ...ticketView(t.ticket), issue_ids: t.issueIds })) };
    },
    createIssueTicket: async (input) =>
      ticketView(await tickets.createTicket(requirePrincipal(input), input.params.id, input.body.tracker_id)),
    linkIssueTicket: async (input) =>
      ticketView(
        await tickets.linkTicket(requirePrincipal(input), input.params.id, input.body.tracker_id, input.body.key),
      ),
    unlinkIssueTicket: async (input) => tickets.unlink(requirePrincipal(input), input.params.id),
  };
}
