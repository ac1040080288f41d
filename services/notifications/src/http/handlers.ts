import { HandlersOf, HttpResponse, listPage, requirePrincipal } from '@bulwark/platform';
import { notificationsRoutes } from '@bulwark/contracts';
import type { ErrorLog } from '../error-log';
import type { Notifiers } from '../notifiers';
import type { SecurityEvents } from '../security-events';
import type { ErrorQuery } from '../store/errors';
import type { EventQuery } from '../store/events';
import {
  errorFiltersView,
  errorView,
  eventsCsv,
  eventTemplatesView,
  eventView,
  notifierView,
  testResultView,
} from './views';

type Handlers = HandlersOf<typeof notificationsRoutes>;
/** The query of one route, as its schema gives it. */
type QueryOf<K extends keyof Handlers> = Parameters<Handlers[K]>[0]['query'];

const eventQuery = ({ search, filter }: QueryOf<'eventsCsv'>): EventQuery => ({
  message: search.message,
  messageRu: search.message_ru,
  type: filter.type,
  projectCode: filter.project_code,
});
const errorQuery = ({ search, filter }: QueryOf<'errorsCsv'>): ErrorQuery => ({
  services: filter.service,
  codes: filter.code,
  levels: filter.level,
  from: filter.occurred_at_start,
  to: filter.occurred_at_end,
  message: search.message,
  messageRu: search.message_ru,
});
const CSV_MAX_ROWS = 100_000;

/** HTTP handlers, keyed by the route table's operation ids: they translate, the services decide. */
export function notificationsHandlers(use: {
  notifiers: Notifiers;
  events: SecurityEvents;
  errors: ErrorLog;
}): Handlers {
  const { notifiers, events: securityEvents, errors } = use;
  return {
    createNotifier: async (input) => notifierView(await notifiers.create(requirePrincipal(input), input.body)),
    listNotifiers: async (input) =>
      listPage(
        input.query,
        await notifiers.list(requirePrincipal(input), {
          page: input.query.page,
          limit: input.query.limit,
          name: input.query.search.name,
        }),
        notifierView,
      ),
    getNotifier: async (input) => notifierView(await notifiers.show(requirePrincipal(input), input.params.id)),
    updateNotifier: async (input) =>
      notifierView(await notifiers.update(requirePrincipal(input), input.params.id, input.body)),
    deleteNotifiers: async (input) => ({ results: await notifiers.delete(requirePrincipal(input), input.body.ids) }),
    testNotifier: async (input) => testResultView(await notifiers.test(requirePrincipal(input), input.params.id)),
    testNotifierType: async (input) =>
      testResultView(await notifiers.testSettings(requirePrincipal(input), input.body.settings)),
    eventTemplate: async () => eventTemplatesView(),
    listEvents: async (input) => {
      const q = input.query;
      return listPage(
        q,
        await securityEvents.list(requirePrincipal(input), { ...eventQuery(q), page: q.page, limit: q.limit }),
        eventView,
      );
    },
    eventsCsv: async (input) => {
      const events = await securityEvents.newest(requirePrincipal(input), eventQuery(input.query), CSV_MAX_ROWS);
      return new HttpResponse(200, Buffer.from(eventsCsv(events), 'utf8'), {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="events.csv"',
      });
    },
    listErrors: async ({ query: q }) =>
      listPage(q, await errors.list({ ...errorQuery(q), page: q.page, limit: q.limit }), errorView),
    errorsCsv: async ({ query }) =>
      new HttpResponse(200, errors.csv(errorQuery(query)), {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="errors-log.csv"',
      }),
    errorFilters: async ({ query: q }) =>
      errorFiltersView(await errors.filterValues({ from: q.filter.occurred_at_start, to: q.filter.occurred_at_end })),
  };
}
