import type { IdentityClient } from '@bulwark/platform';

export type AssigneeType = 'user' | 'group';

/** A user or user group of the identity service, as an assignee. */
export interface DirectoryEntry {
  type: AssigneeType;
  id: string;
  name: string;
  displayName: string;
}

/** Projects the person or group must reach one of, and the permission (`key:letter`) a person must hold there. */
export interface ProjectReach {
  projectCodes: string[];
  permission: string;
}

/** Who exists in the identity service: asked before any transaction that names a person or a group. */
export interface AssigneeDirectory {
  /** The user or group, when it exists. */
  find(ref: { type: AssigneeType; id: string }): Promise<DirectoryEntry | undefined>;
  /** Those of `reach`'s projects the user or group reaches (none when it does not exist), in one call. */
  reached(ref: { type: AssigneeType; id: string }, reach: ProjectReach): Promise<string[]>;
  /** Users and groups by part of their name; with `reach`, only those reaching one of its projects. */
  search(text: string, limit: number, reach?: ProjectReach): Promise<DirectoryEntry[]>;
}

const asEntry = (a: { type: string; id: string; name: string; displayName: string }): DirectoryEntry => ({
  type: a.type === 'group' ? 'group' : 'user',
  id: a.id,
  name: a.name,
  displayName: a.displayName,
});

/** The directory over identity's gRPC API (FindAssignees). */
export class IdentityDirectory implements AssigneeDirectory {
  constructor(private readonly identity: IdentityClient) {}

  async find(ref: { type: AssigneeType; id: string }): Promise<DirectoryEntry | undefined> {
    const found = await this.findRef(ref);
    return found && asEntry(found);
  }

  async reached(ref: { type: AssigneeType; id: string }, reach: ProjectReach): Promise<string[]> {
    return (await this.findRef(ref, reach))?.reachedProjectCodes ?? [];
  }

  private async findRef(ref: { type: AssigneeType; id: string }, reach?: ProjectReach) {
    const { assignees } = await this.identity.findAssignees({
      refs: [ref],
      search: '',
      limit: 1,
      projectCodes: reach?.projectCodes ?? [],
      permission: reach?.permission ?? '',
    });
    return assignees.find((a) => a.type === ref.type && a.id === ref.id);
  }

  async search(text: string, limit: number, reach?: ProjectReach): Promise<DirectoryEntry[]> {
    const { assignees } = await this.identity.findAssignees({
      refs: [],
      search: text,
      limit,
      projectCodes: reach?.projectCodes ?? [],
      permission: reach?.permission ?? '',
    });
    return assignees.map(asEntry);
  }
}
