import type { Principal, Queryable } from '@bulwark/platform';
import { EventQuery, eventStore } from './store/events';

/** The security events log as a caller may read it: only the events of its projects. */
export class SecurityEvents {
  constructor(private readonly db: Queryable) {}

  list(principal: Principal, q: EventQuery & { page: number; limit: number }) {
    return eventStore.list(this.db, principal.projects, q);
  }

  /** The newest `max` events a query selects, for an export. */
  newest(principal: Principal, q: EventQuery, max: number) {
    return eventStore.newest(this.db, principal.projects, q, max);
  }
}
