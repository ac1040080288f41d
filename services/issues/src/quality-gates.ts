import {
  canSeeProject,
  CatalogClient,
  invalid,
  notFound,
  pageOf,
  Principal,
  ProjectSet,
  Queryable,
  ServiceData,
  unlessNotFound,
} from '@bulwark/platform';
import { deleteInScope } from './bulk-delete';
import { CallerScope, CallerScopes } from './caller-scope';
import { GateCondition, gateProjects, LinkedGate } from './domain/gates';
import { GateLinkRecord, GateRecord, gateStore, LayerGateStateRecord } from './store/gates';
import { policyStore } from './store/policies';

/** A gate with its conditions and the layers it is linked to (those of the caller's projects). */
export interface GateDetails {
  gate: GateRecord;
  conditions: GateCondition[];
  links: GateLinkRecord[];
}

/** A layer's gates and their last verdict. */
export interface LayerGateState {
  layerId: string;
  gates: LinkedGate[];
  state: LayerGateStateRecord | undefined;
}

/** The projects gates apply to, now and once a layer's links change. */
interface GateProjects {
  now(gateId: string): ProjectSet;
  /** Once `layer`'s own gates are `gateIds`. */
  withLayer(gateId: string, layer: { id: string; projectCode: string }, gateIds: string[]): ProjectSet;
}

/** At most this many gates are read for one list of a caller limited to some projects. */
const READ_CAP = 10000;

/**
 * Quality gates and their links to layers. A gate applies to the projects of the layers it is linked to
 * and, through the policies that include it, to the projects carrying their tags ({@link gateProjects}):
 * a caller limited to some projects sees the gates touching them (and those linked nowhere), and
 * changes, links or unlinks only gates that apply to its own projects before and after the change.
 */
export class QualityGates {
  constructor(
    private readonly data: ServiceData,
    private readonly catalog: CatalogClient,
    private readonly scopes: CallerScopes,
  ) {}

  async projectsOf(db: Queryable, gateIds: string[]): Promise<GateProjects> {
    const [links, policies] = await Promise.all([gateStore.linksOf(db, gateIds), policyStore.including(db, gateIds)]);
    return {
      now: (id) => gateProjects(id, links, policies),
      withLayer: (id, layer, gateIds) =>
        gateProjects(
          id,
          [
            ...links.filter((l) => l.layerId !== layer.id),
            ...gateIds.map((g) => ({ qualityGateId: g, projectCode: layer.projectCode })),
          ],
          policies,
        ),
    };
  }

  /**
   * The gates a request names in `field`, each known and seen by the caller: a 400 naming the element
   * otherwise, alike for both, so that a gate of other projects is not told from one that does not exist.
   */
  async seen(scope: CallerScope, db: Queryable, gateIds: string[], field: (i: number) => string) {
    const [gates, projects] = await Promise.all([gateStore.getMany(db, gateIds), this.projectsOf(db, gateIds)]);
    gateIds.forEach((id, i) => {
      if (!gates.has(id) || !scope.sees(projects.now(id)))
        throw invalid(`Unknown ${field(i)}`, [{ field: field(i), problem: 'is not a known quality gate' }]);
    });
    return projects;
  }

  private async visible(scope: CallerScope, id: string) {
    const gate = await gateStore.get(this.data.db, id);
    const projects = await this.projectsOf(this.data.db, [id]);
    if (!gate || !scope.sees(projects.now(id))) throw notFound(`Quality gate ${id}`);
    return { gate, projects: projects.now(id) };
  }

  private async details(scope: CallerScope, gate: GateRecord): Promise<GateDetails> {
    const [conditions, links] = await Promise.all([
      gateStore.conditionsOf(this.data.db, [gate.id]),
      gateStore.linksOf(this.data.db, [gate.id]),
    ]);
    return { gate, conditions, links: links.filter((l) => scope.seesProject(l.projectCode)) };
  }

  /** A new gate is linked nowhere: it applies to no project, so any holder of the letter may make one. */
  async create(principal: Principal, name: string): Promise<GateDetails> {
    return this.details(new CallerScope(principal), await gateStore.insert(this.data.db, name, principal.username));
  }

  async get(principal: Principal, id: string): Promise<GateDetails> {
    const scope = await this.scopes.withTags(principal);
    return this.details(scope, (await this.visible(scope, id)).gate);
  }

  async list(
    principal: Principal,
    q: { page: number; limit: number; author?: string; name?: string; project?: string },
  ) {
    const scope = await this.scopes.withTags(principal);
    let page: { items: GateRecord[]; total: number };
    if (scope.everyProject) page = await gateStore.list(this.data.db, q);
    else {
      const all = await gateStore.matching(this.data.db, { ...q, projects: principal.projects }, READ_CAP);
      const projects = await this.projectsOf(
        this.data.db,
        all.map((g) => g.id),
      );
      page = pageOf(
        all.filter((g) => scope.sees(projects.now(g.id))),
        q,
      );
    }
    return { items: await Promise.all(page.items.map((g) => this.details(scope, g))), total: page.total };
  }

  async rename(principal: Principal, id: string, name: string): Promise<GateDetails> {
    const scope = await this.scopes.withTags(principal);
    scope.assertMayChange((await this.visible(scope, id)).projects, `quality gate ${id}`);
    const gate = await gateStore.rename(this.data.db, id, name);
    if (!gate) throw notFound(`Quality gate ${id}`);
    return this.details(scope, gate);
  }

  async delete(principal: Principal, ids: string[]) {
    const scope = await this.scopes.withTags(principal);
    return this.data.transaction(async (trx) => {
      const gates = await gateStore.getMany(trx, ids);
      const projects = await this.projectsOf(trx, [...gates.keys()]);
      return deleteInScope(
        ids,
        gates,
        (g) => scope.access(projects.now(g.id), `quality gate ${g.id}`),
        (allowed) => gateStore.delete(trx, allowed),
      );
    });
  }

  /** The layer a body names, as the caller may see it; unknown and invisible layers are named in a 400 alike. */
  private async layer(principal: Principal, layerId: string) {
    const layer = await this.catalog.getLayer({ id: layerId }).catch(unlessNotFound);
    if (!layer || !canSeeProject(principal, layer.projectCode))
      throw invalid('Unknown layer_id', [{ field: 'layer_id', problem: 'is not a known layer' }]);
    return layer;
  }

  /**
   * Links gates to a layer (`replace`: they become its only gates). Each gate linked or unlinked
   * must be one the caller may change, before and after: a link widens or narrows its projects.
   */
  async link(
    principal: Principal,
    layerId: string,
    links: { qualityGateId: string; action: string }[],
    replace: boolean,
  ): Promise<LayerGateState> {
    const scope = await this.scopes.withTags(principal);
    const layer = await this.layer(principal, layerId);
    const field = replace ? (i: number) => `quality_gates[${i}].quality_gate_id` : () => 'quality_gate_id';
    const named = links.map((l) => l.qualityGateId);
    await this.seen(scope, this.data.db, named, field);
    await this.data.transaction(async (trx) => {
      const current = (await gateStore.linksOfLayer(trx, layerId)).map((l) => l.qualityGateId);
      const after = replace ? named : [...new Set([...current, ...named])];
      const changed = [...named.filter((id) => !current.includes(id)), ...current.filter((id) => !after.includes(id))];
      const projects = await this.projectsOf(trx, changed);
      for (const id of changed) {
        scope.assertMayChange(projects.now(id), `quality gate ${id}`);
        scope.assertMayChange(
          projects.withLayer(id, { id: layerId, projectCode: layer.projectCode }, after),
          `quality gate ${id}`,
        );
      }
      await gateStore.setLinks(trx, layerId, layer.projectCode, links, replace);
    });
    return this.gateState(layerId);
  }

  /** A layer named in the path: an unknown or invisible one answers 404, as any addressed record does. */
  async layerState(principal: Principal, layerId: string): Promise<LayerGateState> {
    const layer = await this.catalog.getLayer({ id: layerId }).catch(unlessNotFound);
    if (!layer || !canSeeProject(principal, layer.projectCode)) throw notFound(`Layer ${layerId}`);
    return this.gateState(layerId);
  }

  private async gateState(layerId: string): Promise<LayerGateState> {
    const gates = await gateStore.linkedTo(this.data.db, layerId);
    const state = await gateStore.layerState(this.data.db, layerId);
    return { layerId, gates, state };
  }
}
