import { conflict, Db, FieldProblem, invalid, notFound, Principal, present } from '@bulwark/platform';
import { IDENTITY_EVENTS, isPermissionKey } from '@bulwark/contracts';
import { visibleSystemScopes } from './domain/visibility';
import { EscalationGuard } from './escalation-guard';
import { BulkStatus, identityEvent, RightsChanges } from './rights-changes';
import { roleStore, RoleWrite } from './store/roles';

/**
 * Roles: permission keys with their letters, bound to directory groups; the built-in admin role is
 * fixed. A role acts on its holders, so creating, changing or deleting one needs holding what it
 * grants, before and after the change (the escalation rule).
 */
export class Roles {
  constructor(
    private readonly db: Db,
    private readonly changes: RightsChanges,
  ) {}

  private checkRoleContent(roles: Record<string, string[]> | undefined): void {
    if (!roles) return;
    const problems: FieldProblem[] = Object.keys(roles)
      .filter((k) => !isPermissionKey(k))
      .map((k) => ({ field: `roles.${k}`, problem: 'is not a permission key (see GET /api/v1/permissions)' }));
    if (problems.length > 0)
      throw invalid(`Unknown permission keys: ${problems.map((p) => p.field).join(', ')}`, problems);
  }

  async createRole(principal: Principal, code: string, w: RoleWrite) {
    this.checkRoleContent(w.permissions);
    return this.changes.commit(async (trx) => {
      if (await roleStore.get(trx, code))
        throw conflict(`Role ${code} already exists`, [{ field: 'role_code', problem: 'already exists' }]);
      (await EscalationGuard.of(trx, principal)).grant([
        { code, permissions: w.permissions, systemScopes: w.systemScopes },
      ]);
      await roleStore.insert(trx, code, w);
      await identityEvent(trx, IDENTITY_EVENTS.roleCreated, code, { role_code: code });
      return present(await roleStore.get(trx, code), `role ${code}`);
    });
  }

  /** A caller limited to some projects sees a role of every project or of one of its projects, and only its own codes. */
  async getRole(principal: Principal, code: string) {
    const role = await roleStore.get(this.db, code);
    const systemScopes = role && visibleSystemScopes(principal, role.systemScopes);
    if (!role || !systemScopes) throw notFound(`Role ${code}`);
    return { ...role, systemScopes };
  }

  async updateRole(principal: Principal, code: string, patch: Partial<RoleWrite>) {
    this.checkRoleContent(patch.permissions);
    return this.changes.commit(async (trx) => {
      const role = await roleStore.get(trx, code);
      if (!role) throw notFound(`Role ${code}`);
      if (role.builtin) throw conflict(`Role ${code} is built in and cannot be changed`);
      const next: RoleWrite = {
        name: patch.name ?? role.name,
        permissions: patch.permissions ?? role.permissions,
        description: patch.description ?? role.description,
        domainGroup: patch.domainGroup ?? role.domainGroup,
        systemScopes: patch.systemScopes ?? role.systemScopes,
      };
      const guard = await EscalationGuard.of(trx, principal);
      guard.grant([role], { kind: 'grantor', action: 'Changing', what: `role ${code}` });
      guard.grant([{ code, permissions: next.permissions, systemScopes: next.systemScopes }]);
      await roleStore.update(trx, code, next);
      await identityEvent(trx, IDENTITY_EVENTS.roleUpdated, code, { role_code: code });
      return present(await roleStore.get(trx, code), `role ${code}`);
    });
  }

  async deleteRoles(principal: Principal, codes: string[], detach: boolean): Promise<BulkStatus[]> {
    return this.changes.commit(async (trx) => {
      const guard = await EscalationGuard.of(trx, principal);
      const results: BulkStatus[] = [];
      for (const code of codes) {
        const role = await roleStore.get(trx, code);
        const refusal =
          role && guard.refusalToGrant([role], { kind: 'grantor', action: 'Deleting', what: `role ${code}` });
        if (!role) results.push({ id: code, status: 'not_found' });
        else if (role.builtin) results.push({ id: code, status: 'conflict', message: 'built-in role' });
        else if (refusal) results.push({ id: code, status: 'forbidden', message: refusal });
        else {
          const holders = await roleStore.holders(trx, code);
          const groups = await roleStore.groupHolders(trx, code);
          if ((holders > 0 || groups > 0) && !detach) {
            results.push({
              id: code,
              status: 'conflict',
              message: `held by ${holders} user(s) and ${groups} user group(s); send "detach": true to remove it from them`,
            });
          } else {
            await roleStore.delete(trx, code);
            await identityEvent(trx, IDENTITY_EVENTS.roleDeleted, code, {
              role_code: code,
              detached_users: holders,
              detached_groups: groups,
            });
            results.push({ id: code, status: 'deleted' });
          }
        }
      }
      return results;
    });
  }

  async listRoles(principal: Principal, q: { page: number; limit: number; search: { id?: string; name?: string } }) {
    const page = await roleStore.list(this.db, {
      page: q.page,
      limit: q.limit,
      searchId: q.search.id,
      searchName: q.search.name,
      touching: principal.projects ?? undefined,
    });
    return {
      ...page,
      items: page.items.map((r) => ({ ...r, systemScopes: visibleSystemScopes(principal, r.systemScopes) ?? [] })),
    };
  }
}
