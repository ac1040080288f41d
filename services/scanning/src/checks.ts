import { randomUUID } from 'node:crypto';
import {
  AppError,
  canSeeProject,
  conflict,
  invalid,
  isUuid,
  notFound,
  Principal,
  Queryable,
  SecretBox,
  ServiceData,
  present,
} from '@bulwark/platform';
import { checkExtraArgs, newEvent, SCAN_EVENTS, toolType, writeEvent, writeEvents } from '@bulwark/contracts';
import { CatalogGate } from './catalog-client';
import { GroupedCheckInput, PlanError, planCheckCreate, planCheckUpdate, TagInfo } from './domain/check-plan';
import { CheckRecord, CheckSettings, checkStore, Comparison } from './store/checks';
import { scanStore } from './store/scans';

export interface CheckInput {
  layer_id?: string;
  security_tool_id?: string;
  tool_settings?: Record<string, unknown> & { api_token?: string };
  scan_source_id?: string;
  source_auth?: Record<string, unknown>;
  run_scan_task?: Record<string, unknown>;
  project_code?: string;
  tags?: TagInfo[];
  grouped_checks?: GroupedCheckInput[];
}

type BulkStatus = { id: string; status: 'deleted' | 'not_found' | 'conflict'; message?: string };

function planned<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PlanError) throw invalid(`Invalid checks: ${err.message}`, err.problems);
    throw err;
  }
}

/** Checks and check groups: the guide's rules, applied in one transaction with their events. */
export class Checks {
  constructor(
    private readonly data: ServiceData,
    private readonly catalog: CatalogGate,
    private readonly secrets: SecretBox,
  ) {}

  /** The latest scan of each of these checks (those with one). */
  latestScans(checkIds: string[]) {
    return scanStore.latestFor(this.data.db, checkIds);
  }

  /** A check the caller may see, or 404. */
  async visible(principal: Principal, id: string, db: Queryable = this.data.db): Promise<CheckRecord> {
    const check = await checkStore.get(db, id);
    if (!check || !canSeeProject(principal, check.projectCode)) throw notFound(`Check ${id}`);
    return check;
  }

  /** Resolves and validates the settings a check would have after this request. */
  private async settingsFor(principal: Principal, input: CheckInput, current?: CheckRecord): Promise<CheckSettings> {
    const layerId = input.layer_id ?? current?.layerId;
    const toolId = input.security_tool_id ?? current?.securityToolId;
    const sourceId = input.scan_source_id ?? current?.scanSourceId;
    if (!layerId || !toolId || !sourceId) {
      const missing = Object.entries({ layer_id: layerId, security_tool_id: toolId, scan_source_id: sourceId })
        .filter(([, v]) => !v)
        .map(([field]) => field);
      throw invalid(
        `Missing ${missing.join(', ')}`,
        missing.map((field) => ({ field, problem: 'is required' })),
      );
    }
    const layer = await this.catalog.layerFor(principal, layerId);
    if (input.project_code !== undefined && input.project_code !== layer.projectCode) {
      throw invalid('Invalid project_code: not the layer\u2019s project', [
        { field: 'project_code', problem: `the layer belongs to project ${layer.projectCode}` },
      ]);
    }
    if (layer.projectArchived) throw conflict(`Project ${layer.projectCode} is archived: its checks cannot change`);
    await this.catalog.assertUsable(layer.projectCode, sourceId, toolId);
    const { api_token: token, ...toolSettings } = input.tool_settings ?? current?.toolSettings ?? {};
    if (Array.isArray(toolSettings.extra_args)) await this.assertExtraArgs(toolId, toolSettings.extra_args as string[]);
    return {
      layerId: layer.id,
      projectCode: layer.projectCode,
      securityToolId: toolId,
      scanSourceId: sourceId,
      toolSettings,
      // A new token replaces the stored one; no token in the request keeps it.
      toolTokenSealed: typeof token === 'string' && token.length > 0 ? this.secrets.seal(token) : undefined,
      sourceAuth: input.source_auth ?? current?.sourceAuth ?? {},
      runScanTask: input.run_scan_task ?? current?.runScanTask ?? { type: 'manual' },
    };
  }

  /** A check's `extra_args` override the tool's: the tool type's allow-list applies to them as well. */
  private async assertExtraArgs(toolId: string, args: string[]): Promise<void> {
    const execution = toolType((await this.catalog.tool(toolId)).typeId)?.execution;
    if (!execution) return;
    const problems = checkExtraArgs(execution.extraArgs, args).map((p) => ({
      field: `tool_settings.extra_args[${p.index}]`,
      problem: p.problem,
    }));
    if (problems.length > 0)
      throw invalid(`Invalid tool_settings: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
  }

  async create(principal: Principal, input: CheckInput): Promise<CheckRecord> {
    const plan = planned(() => planCheckCreate(input.tags));
    const settings = await this.settingsFor(principal, input);
    const id = await this.data.transaction(async (trx) => {
      const groupId = plan.group ? randomUUID() : null;
      if (groupId) await checkStore.createGroup(trx, groupId);
      const ids = plan.tags.map(() => randomUUID());
      for (const [i, tag] of plan.tags.entries()) await checkStore.insert(trx, ids[i], groupId, settings, tag ?? null);
      await writeEvents(
        trx,
        ids.map((x) =>
          newEvent(SCAN_EVENTS.checkCreated, x, { check_id: x, layer_id: settings.layerId, group_id: groupId }),
        ),
      );
      return ids[0];
    });
    return present(await checkStore.get(this.data.db, id), `check ${id}`);
  }

  async update(principal: Principal, id: string, input: CheckInput): Promise<CheckRecord> {
    const current = await this.visible(principal, id);
    const settings = await this.settingsFor(principal, input, current);
    await this.data.transaction(async (trx) => {
      const path = present(await checkStore.getForUpdate(trx, id), `check ${id}`);
      const members = path.groupId ? (await checkStore.groupMembers(trx, path.groupId)).map((c) => c.id) : [];
      const plan = planned(() =>
        planCheckUpdate({ id: path.id, groupId: path.groupId }, members, input.grouped_checks),
      );
      let groupId = path.groupId;
      if (plan.group === 'create') {
        groupId = randomUUID();
        await checkStore.createGroup(trx, groupId);
      }
      for (const u of plan.update) {
        await checkStore.update(trx, u.checkId, settings, u.tag);
        if (plan.group === 'create') await checkStore.setGroup(trx, [u.checkId], groupId);
      }
      const created = plan.create.map(() => randomUUID());
      for (const [i, tag] of plan.create.entries())
        await checkStore.insert(trx, created[i], plan.group === 'dissolve' ? null : groupId, settings, tag);
      await checkStore.setGroup(trx, plan.detach, null);
      if (plan.group === 'dissolve' && groupId) {
        await checkStore.setGroup(
          trx,
          plan.update.map((u) => u.checkId),
          null,
        );
        await checkStore.deleteEmptyGroup(trx, groupId);
      }
      await writeEvents(
        trx,
        [...plan.update.map((u) => u.checkId), ...plan.detach].map((x) =>
          newEvent(SCAN_EVENTS.checkUpdated, x, { check_id: x }),
        ),
      );
      await writeEvents(
        trx,
        created.map((x) =>
          newEvent(SCAN_EVENTS.checkCreated, x, { check_id: x, layer_id: settings.layerId, group_id: groupId }),
        ),
      );
    });
    return present(await checkStore.get(this.data.db, id), `check ${id}`);
  }

  async groupOf(check: CheckRecord): Promise<CheckRecord[] | undefined> {
    return check.groupId ? checkStore.groupMembers(this.data.db, check.groupId) : undefined;
  }

  async deleteGroup(principal: Principal, groupId: string): Promise<string[]> {
    return this.data.transaction(async (trx) => {
      const members = await checkStore.groupMembers(trx, groupId);
      if (
        !(await checkStore.groupExists(trx, groupId)) ||
        members.some((c) => !canSeeProject(principal, c.projectCode))
      ) {
        throw notFound(`Check group ${groupId}`);
      }
      const busy = await scanStore.inFlightFor(
        trx,
        members.map((c) => c.id),
      );
      if (busy.length > 0)
        throw conflict(
          `Checks of the group have scans in flight: ${busy.map((s) => s.checkId).join(', ')}; stop them first`,
        );
      const deleted = await checkStore.deleteGroup(trx, groupId);
      await writeEvents(
        trx,
        deleted.map((x) => newEvent(SCAN_EVENTS.checkDeleted, x, { check_id: x, group_id: groupId })),
      );
      return deleted;
    });
  }

  async delete(principal: Principal, ids: string[]): Promise<BulkStatus[]> {
    return this.data.transaction(async (trx) => {
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const check = isUuid(id) ? await checkStore.get(trx, id) : undefined;
        if (!check || !canSeeProject(principal, check.projectCode)) {
          results.push({ id, status: 'not_found' });
          continue;
        }
        if ((await scanStore.inFlightFor(trx, [id])).length > 0) {
          results.push({ id, status: 'conflict', message: 'a scan is in flight; stop it first' });
          continue;
        }
        await checkStore.delete(trx, id);
        if (check.groupId) {
          const left = await checkStore.groupMembers(trx, check.groupId);
          if (left.length < 2) {
            await checkStore.setGroup(
              trx,
              left.map((c) => c.id),
              null,
            );
            await checkStore.deleteEmptyGroup(trx, check.groupId);
          }
        }
        await writeEvent(trx, SCAN_EVENTS.checkDeleted, check.id, { check_id: check.id, group_id: check.groupId });
        results.push({ id, status: 'deleted' });
      }
      return results;
    });
  }

  async setComparison(principal: Principal, id: string, comparison: Comparison): Promise<CheckRecord> {
    const check = await this.visible(principal, id);
    const referenced =
      comparison.mode === 'baseline'
        ? [comparison.baseline_scan_result_id]
        : comparison.mode === 'pair'
          ? comparison.scan_result_ids
          : [];
    for (const [i, scanId] of referenced.entries()) {
      const scan = await scanStore.get(this.data.db, scanId);
      if (!scan || scan.checkId !== check.id) {
        const field = comparison.mode === 'baseline' ? 'baseline_scan_result_id' : `scan_result_ids[${i}]`;
        throw invalid(`Invalid ${field}: not a scan result of this check`, [
          { field, problem: 'is not a scan result of this check' },
        ]);
      }
    }
    await this.data.transaction(async (trx) => {
      await checkStore.setComparison(trx, id, comparison);
      await writeEvent(trx, SCAN_EVENTS.checkUpdated, check.id, { check_id: check.id, comparison });
    });
    return present(await checkStore.get(this.data.db, id), `check ${id}`);
  }

  list(
    principal: Principal,
    q: { page: number; limit: number; layerId?: string; projectCode?: string; groupId?: string },
  ) {
    return checkStore.list(this.data.db, { ...q, projects: principal.projects });
  }

  /** A stored check-level token, opened for a scan. */
  toolToken(check: CheckRecord): string | undefined {
    if (!check.toolTokenSealed) return undefined;
    try {
      return this.secrets.open(check.toolTokenSealed);
    } catch {
      throw new AppError('internal', 'The check\u2019s stored token cannot be opened with the current master key');
    }
  }
}
