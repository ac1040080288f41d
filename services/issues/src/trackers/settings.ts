import {
  assertCredentialStaysWith,
  assertReachable,
  invalid,
  isUuid,
  notFound,
  OutboundPolicy,
  pageOf,
  Principal,
  SecretBox,
  ServiceData,
} from '@bulwark/platform';
import { TrackerBody } from '@bulwark/contracts';
import { CallerScope } from '../caller-scope';
import { historyStore } from '../store/history';
import { statusStore } from '../store/settings';
import { ticketStore, TrackerInput, TrackerRecord, trackerStore } from '../store/trackers';
import type { TrackerAccess } from './access';
import { trackerInScope, trackerProjects } from './scope';

/** At most this many trackers are read for one list of a caller limited to some projects. */
const READ_CAP = 10000;

/**
 * The task trackers themselves: list, read, create, update and delete, with their checks. A tracker
 * applies to the projects it maps (`*`: every project): a caller limited to some projects sees those
 * mapping one of its projects (or none), with only its own projects' mappings, and changes only those
 * mapping its own projects.
 */
export class TrackerSettings {
  constructor(
    private readonly deps: { data: ServiceData; secrets: SecretBox; policy: OutboundPolicy; access: TrackerAccess },
  ) {}

  /** How many tickets the tracker's issues are linked to. */
  async ticketCount(id: string): Promise<number> {
    return (await trackerStore.ticketCounts(this.deps.data.db, [id])).get(id) ?? 0;
  }

  /** A page of trackers, each with its number of tickets. */
  async list(principal: Principal, q: { page: number; limit: number; name?: string; types?: string[] }) {
    const { db } = this.deps.data;
    const scope = new CallerScope(principal);
    const page = scope.everyProject
      ? await trackerStore.list(db, q)
      : pageOf(
          (await trackerStore.matching(db, q, READ_CAP))
            .filter((t) => scope.sees(trackerProjects(t.projects)))
            .map((t) => trackerInScope(scope, t)),
          q,
        );
    const counts = await trackerStore.ticketCounts(
      db,
      page.items.map((t) => t.id),
    );
    return { items: page.items.map((t) => ({ tracker: t, tickets: counts.get(t.id) ?? 0 })), total: page.total };
  }

  async get(principal: Principal, id: string): Promise<TrackerRecord> {
    const scope = new CallerScope(principal);
    return trackerInScope(scope, await this.deps.access.seen(scope, id));
  }

  private async checkStatuses(b: TrackerBody): Promise<void> {
    const known = new Set((await statusStore.list(this.deps.data.db)).map((s) => s.id));
    const problems = [
      ...(b.status_mapping?.to_bulwark ?? []).map((m, i) => ({
        field: `status_mapping.to_bulwark[${i}].status_id`,
        id: m.status_id,
      })),
      ...(b.status_mapping?.to_tracker ?? []).map((m, i) => ({
        field: `status_mapping.to_tracker[${i}].status_id`,
        id: m.status_id,
      })),
    ].filter((p) => !known.has(p.id));
    if (problems.length)
      throw invalid(
        'Unknown Bulwark status in status_mapping',
        problems.map((p) => ({ field: p.field, problem: 'is not a known status id' })),
      );
  }

  private input(b: TrackerBody, credentialsSealed: string): TrackerInput {
    return {
      name: b.name,
      type: b.type,
      url: b.url.replace(/\/+$/, ''),
      credentialsSealed,
      projects: b.projects ?? [],
      statusMapping: {
        to_bulwark: b.status_mapping?.to_bulwark ?? [],
        to_tracker: b.status_mapping?.to_tracker ?? [],
      },
      fieldTemplates: b.field_templates ?? {},
      jiraApiVersion: b.jira_api_version ?? 3,
      syncEnabled: b.sync_enabled ?? true,
    };
  }

  async create(principal: Principal, b: TrackerBody): Promise<TrackerRecord> {
    new CallerScope(principal).assertMayChange(trackerProjects(b.projects ?? []), 'this tracker');
    await assertReachable(this.deps.policy, b.url, 'url', 'Tracker url');
    await this.checkStatuses(b);
    return trackerStore.insert(this.deps.data.db, this.input(b, this.deps.secrets.seal(JSON.stringify(b.credentials))));
  }

  async update(principal: Principal, id: string, b: TrackerBody): Promise<TrackerRecord> {
    const scope = new CallerScope(principal);
    const current = await this.deps.access.changeable(scope, id);
    scope.assertMayChange(trackerProjects(b.projects ?? []), `tracker ${id}`);
    if (!b.credentials && b.type !== current.type)
      throw invalid('A tracker of another type needs its credentials', [
        { field: 'credentials', problem: `is required when type changes from ${current.type}` },
      ]);
    // Stored credentials go only where they were stored for: another address needs them given again.
    if (!b.credentials) assertCredentialStaysWith(current.url, b.url, 'url');
    await assertReachable(this.deps.policy, b.url, 'url', 'Tracker url');
    await this.checkStatuses(b);
    const sealed = b.credentials ? this.deps.secrets.seal(JSON.stringify(b.credentials)) : current.credentialsSealed;
    const row = await trackerStore.update(this.deps.data.db, id, this.input(b, sealed));
    if (!row) throw notFound(`Tracker ${id}`);
    return trackerInScope(scope, row);
  }

  /** A tracker is in use while a project is mapped to it or an issue is linked to one of its tickets. */
  async delete(principal: Principal, ids: string[], force: boolean) {
    const scope = new CallerScope(principal);
    return this.deps.data.transaction(async (trx) => {
      const out: { id: string; status: 'deleted' | 'not_found' | 'conflict' | 'forbidden'; message?: string }[] = [];
      const doomed: string[] = [];
      const counts = await trackerStore.ticketCounts(trx, ids.filter(isUuid));
      for (const id of ids) {
        const t = isUuid(id) ? await trackerStore.get(trx, id) : undefined;
        const access = t && scope.access(trackerProjects(t.projects), `tracker ${id}`);
        if (!t || !access?.sees) {
          out.push({ id, status: 'not_found' });
          continue;
        }
        if (access.refusal) {
          out.push({ id, status: 'forbidden', message: access.refusal });
          continue;
        }
        const tickets = counts.get(id) ?? 0;
        if (!force && (t.projects.length > 0 || tickets > 0)) {
          out.push({
            id,
            status: 'conflict',
            message: `in use: ${t.projects.length} project mapping(s) (${t.projects.map((p) => p.project_code).join(', ') || 'none'}), ${tickets} ticket(s); delete with force to unlink them`,
          });
          continue;
        }
        doomed.push(id);
        out.push({ id, status: 'deleted' });
      }
      const links = await ticketStore.linksOfTrackers(trx, doomed);
      const at = new Date().toISOString();
      await historyStore.add(
        trx,
        links.map((l) => ({
          issueId: l.issueId,
          actorKind: 'user' as const,
          actor: principal.username,
          field: 'ticket',
          oldValue: l.key,
          newValue: null,
          comment: 'Tracker deleted',
          at,
        })),
      );
      await trackerStore.deleteMany(trx, doomed);
      return out;
    });
  }
}
