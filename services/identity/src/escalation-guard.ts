import { forbidden, Principal, Queryable } from '@bulwark/platform';
import { escalationRefusal, heldRights, HeldRights, Refused, shortfalls } from './domain/escalation';
import type { RoleGrant } from './domain/permissions';
import { roleStore } from './store/roles';
import { userStore } from './store/users';
import { userGrants } from './user-grants';

/** What a group hands its members: its roles, on the projects it covers. */
export interface GroupGrant {
  roles: string[];
  projectTags: string[];
  projectCodes: string[];
}

/**
 * The escalation rule for one caller, as every application class of identity applies it: users,
 * groups, roles, API tokens and the single sign-on role mapping. The caller's rights are read from
 * identity's own store for its user id, not from the principal: the gateway narrows the principal's
 * projects to the route's permission, and the rule compares every letter on its own projects.
 */
export class EscalationGuard {
  private constructor(
    private readonly db: Queryable,
    private readonly held: HeldRights,
  ) {}

  /** `db`: the transaction of the change, so the rights compared are the ones it commits against. */
  static async of(db: Queryable, principal: Principal): Promise<EscalationGuard> {
    const user = await userStore.get(db, principal.userId);
    const grants = user && !user.deletedAt ? await userGrants(db, user) : [];
    return new EscalationGuard(db, heldRights(grants));
  }

  /** The refusal, if any, to hand out these grants (a role as it will be stored, say); bulk operations answer it per id. */
  refusalToGrant(grants: RoleGrant[], refused: Refused = { kind: 'grant' }): string | undefined {
    return escalationRefusal(refused, shortfalls(this.held, heldRights(grants)), this.held.projects);
  }

  /** 403 unless the caller holds what these grants give. */
  grant(grants: RoleGrant[], refused: Refused = { kind: 'grant' }): void {
    const message = this.refusalToGrant(grants, refused);
    if (message) throw forbidden(message);
  }

  /** 403 unless the caller holds these roles, each as its holders get it (on its own project scopes). */
  async grantRoles(codes: string[], refused: Refused = { kind: 'grant' }): Promise<void> {
    this.grant(await roleStore.grants(this.db, codes), refused);
  }

  /**
   * The refusal, if any, to create, change or delete a group: the caller must hold the group's roles
   * on the projects it covers. A group naming project tags covers every project that gets such a tag
   * later, so only a holder on every project grants through it.
   */
  async refusalForGroup(group: GroupGrant, refused: Refused): Promise<string | undefined> {
    const codes = group.projectCodes;
    const limit = group.projectTags.length === 0 && codes.length > 0 ? { limitTo: codes } : {};
    const grants = (await roleStore.grants(this.db, group.roles)).map((r) => ({ ...r, ...limit }));
    return this.refusalToGrant(grants, refused);
  }

  async group(group: GroupGrant, refused: Refused): Promise<void> {
    const message = await this.refusalForGroup(group, refused);
    if (message) throw forbidden(message);
  }

  /** The refusal, if any, to act on this user (change, reset, delete, restore, revoke tokens): the caller must hold all the user holds. */
  async refusalForUser(user: { id: string; username: string; roles: string[] }, action: string) {
    return this.refusalToGrant(await userGrants(this.db, user), { kind: 'user', action, username: user.username });
  }

  async actOn(user: { id: string; username: string; roles: string[] }, action: string): Promise<void> {
    const message = await this.refusalForUser(user, action);
    if (message) throw forbidden(message);
  }
}
