import { randomUUID } from 'node:crypto';
import {
  conflict,
  Db,
  FieldProblem,
  invalid,
  isUuid,
  notFound,
  Principal,
  Queryable,
  present,
} from '@bulwark/platform';
import { ADMIN_GROUP_PROBLEM, IDENTITY_EVENTS } from '@bulwark/contracts';
import type { DirectoryLogins } from './directory';
import { directoryKey } from './domain/groups';
import { visibleGroupProjects } from './domain/visibility';
import { ADMIN_ROLE, LAST_ADMIN_MESSAGE } from './domain/permissions';
import { EscalationGuard } from './escalation-guard';
import { GroupRecord, groupStore, GroupWrite } from './store/groups';
import { BulkStatus, identityEvent, RightsChanges } from './rights-changes';
import { roleStore } from './store/roles';
import { userStore } from './store/users';

export interface GroupInput {
  name?: string;
  description?: string;
  user_ids?: string[];
  domain_group?: string[];
  roles?: string[];
  project_tags?: string[];
  project_codes?: string[];
}

/** Thrown inside a savepoint to undo one change of a bulk operation that would remove the last admin. */
class LastAdmin extends Error {}

const dedupe = (values: string[]) => [...new Set(values)];
/** The first of each run of values that compare the same. */
const dedupeBy = (values: string[], key: (v: string) => string) => {
  const seen = new Set<string>();
  return values.filter((v) => !seen.has(key(v)) && Boolean(seen.add(key(v))));
};

/**
 * User groups: members (users named, and directory groups), roles, and the projects the roles are
 * limited to. Every change commits with its event, then moves the auth epoch, so members' rights
 * change at once on every gateway. No change may leave no administrator who can log in. A group
 * hands its roles to its members, so creating, changing or deleting one needs holding its roles on
 * its projects, before and after the change (the escalation rule).
 */
export class UserGroups {
  constructor(
    private readonly db: Db,
    private readonly changes: RightsChanges,
    private readonly directory: DirectoryLogins,
  ) {}

  /** Checks what the store cannot: users and roles that exist, and admin only where it holds everywhere. */
  private async checked(db: Queryable, w: GroupWrite): Promise<GroupWrite> {
    const problems: FieldProblem[] = [];
    // Problems name the position in the request, before duplicates are dropped.
    if (w.userIds) {
      const live = await userStore.liveIds(db, dedupe(w.userIds).filter(isUuid));
      w.userIds.forEach(
        (id, i) =>
          live.has(id) || problems.push({ field: `user_ids[${i}]`, problem: `is not the id of a user: "${id}"` }),
      );
      w = { ...w, userIds: dedupe(w.userIds) };
    }
    if (w.roles) {
      const known = await roleStore.existing(db, dedupe(w.roles));
      w.roles.forEach(
        (code, i) => known.has(code) || problems.push({ field: `roles[${i}]`, problem: `unknown role code "${code}"` }),
      );
      w = { ...w, roles: dedupe(w.roles) };
    }
    const roles = w.roles ?? [];
    if (roles.includes(ADMIN_ROLE) && (w.projectTags.length > 0 || w.projectCodes.length > 0)) {
      problems.push({ field: 'roles', problem: ADMIN_GROUP_PROBLEM });
    }
    if (problems.length > 0)
      throw invalid(`Invalid group: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems);
    return {
      ...w,
      domainGroup: w.domainGroup
        ? dedupeBy(
            w.domainGroup.map((e) => e.trim()),
            directoryKey,
          )
        : undefined,
      projectTags: dedupeBy(w.projectTags, (t) => t.toLowerCase()),
      projectCodes: dedupe(w.projectCodes),
    };
  }

  private async nameFree(db: Queryable, name: string, self?: string): Promise<void> {
    const holder = await groupStore.idByName(db, name);
    if (holder && holder !== self)
      throw conflict(`A group named ${name} exists`, [{ field: 'name', problem: 'is taken by another group' }]);
  }

  async create(principal: Principal, input: GroupInput & { name: string }): Promise<GroupRecord> {
    const w: GroupWrite = {
      name: input.name,
      description: input.description ?? '',
      userIds: input.user_ids ?? [],
      domainGroup: input.domain_group ?? [],
      roles: input.roles ?? [],
      projectTags: input.project_tags ?? [],
      projectCodes: input.project_codes ?? [],
    };
    return this.changes.commit(async (trx) => {
      const write = await this.checked(trx, w);
      await this.nameFree(trx, write.name);
      await (await EscalationGuard.of(trx, principal)).group({ ...write, roles: write.roles ?? [] }, { kind: 'grant' });
      const id = randomUUID();
      await groupStore.insert(trx, id, write);
      await identityEvent(trx, IDENTITY_EVENTS.groupCreated, id, { id, name: write.name });
      return present(await groupStore.get(trx, id), `group ${id}`);
    });
  }

  /** A caller limited to some projects sees a group of every project or touching one of its projects, and only its own codes and tags. */
  async get(principal: Principal, id: string): Promise<GroupRecord> {
    const group = isUuid(id) ? await groupStore.get(this.db, id) : undefined;
    const projects = group && visibleGroupProjects(principal, group, await this.callerTags(principal));
    if (!group || !projects) throw notFound(`Group ${id}`);
    return { ...group, ...projects };
  }

  async list(
    principal: Principal,
    q: { page: number; limit: number; search: { name?: string; project_tags?: string } },
  ) {
    const tags = await this.callerTags(principal);
    const page = await groupStore.list(this.db, {
      page: q.page,
      limit: q.limit,
      searchName: q.search.name,
      searchProjectTags: q.search.project_tags,
      touching: principal.projects === null ? undefined : { codes: principal.projects, tags },
    });
    return {
      ...page,
      items: page.items.map((g) => ({ ...g, ...(visibleGroupProjects(principal, g, tags) ?? g) })),
    };
  }

  private callerTags(principal: Principal): Promise<string[]> {
    return principal.projects === null ? Promise.resolve([]) : groupStore.tagsOf(this.db, principal.projects);
  }

  async update(principal: Principal, id: string, input: GroupInput): Promise<GroupRecord> {
    if (!isUuid(id)) throw notFound(`Group ${id}`);
    // Read before the transaction: the single-process mode's embedded database has one connection.
    const directoryLogin = await this.directory.configured();
    return this.changes.commit(async (trx) => {
      const current = await groupStore.get(trx, id);
      if (!current) throw notFound(`Group ${id}`);
      const write = await this.checked(trx, {
        name: input.name ?? current.name,
        description: input.description ?? current.description,
        projectTags: input.project_tags ?? current.projectTags,
        projectCodes: input.project_codes ?? current.projectCodes,
        userIds: input.user_ids,
        domainGroup: input.domain_group,
        // Checked against the stored roles too: new project limits must not narrow an admin grant.
        roles: input.roles ?? current.roles,
      });
      await this.nameFree(trx, write.name, id);
      const guard = await EscalationGuard.of(trx, principal);
      await guard.group(current, { kind: 'grantor', action: 'Changing', what: `group ${current.name}` });
      await guard.group({ ...write, roles: write.roles ?? current.roles }, { kind: 'grant' });
      await userStore.lockAdministrators(trx, ADMIN_ROLE);
      const before = await userStore.workingAdminIds(trx, ADMIN_ROLE, directoryLogin);
      await groupStore.update(trx, id, write);
      if (before.size > 0 && (await userStore.workingAdminIds(trx, ADMIN_ROLE, directoryLogin)).size === 0)
        throw conflict(LAST_ADMIN_MESSAGE);
      await identityEvent(trx, IDENTITY_EVENTS.groupUpdated, id, { id, fields: Object.keys(input) });
      return present(await groupStore.get(trx, id), `group ${id}`);
    });
  }

  async delete(principal: Principal, ids: string[]): Promise<BulkStatus[]> {
    const directoryLogin = await this.directory.configured();
    return this.changes.commit(async (trx) => {
      await userStore.lockAdministrators(trx, ADMIN_ROLE);
      const adminsAtStart = (await userStore.workingAdminIds(trx, ADMIN_ROLE, directoryLogin)).size;
      const guard = await EscalationGuard.of(trx, principal);
      const results: BulkStatus[] = [];
      for (const id of ids) {
        const group = isUuid(id) ? await groupStore.get(trx, id) : undefined;
        if (!group) {
          results.push({ id, status: 'not_found' });
          continue;
        }
        const refusal = await guard.refusalForGroup(group, {
          kind: 'grantor',
          action: 'Deleting',
          what: `group ${group.name}`,
        });
        if (refusal) {
          results.push({ id, status: 'forbidden', message: refusal });
          continue;
        }
        try {
          // A savepoint: a deletion that would leave no administrator is undone alone.
          await trx.transaction(async (sp) => {
            await groupStore.delete(sp, id);
            if (adminsAtStart > 0 && (await userStore.workingAdminIds(sp, ADMIN_ROLE, directoryLogin)).size === 0)
              throw new LastAdmin();
          });
        } catch (err) {
          if (!(err instanceof LastAdmin)) throw err;
          results.push({ id, status: 'conflict', message: LAST_ADMIN_MESSAGE });
          continue;
        }
        await identityEvent(trx, IDENTITY_EVENTS.groupDeleted, id, { id, name: group.name });
        results.push({ id, status: 'deleted' });
      }
      return results;
    });
  }
}
