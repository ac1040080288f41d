import {
  assertMayChangeProjectSet,
  canSeeProject,
  CatalogClient,
  maySeeProjectSet,
  Principal,
  ProjectSet,
  projectSetAccess,
  ProjectSetAccess,
  unlessNotFound,
  visibleProjectSet,
} from '@bulwark/platform';

/**
 * The caller as project scope sees it: its projects and the tags they carry, gathered once per request
 * so that platform's project-set rule can decide on each rule, gate, policy and tracker it meets.
 */
export class CallerScope {
  constructor(
    readonly principal: Principal,
    /** Tags carried by the caller's projects (none needed for a caller of every project). */
    readonly tags: readonly string[] = [],
  ) {}

  /** A caller of every project: lists and reads need no filtering. */
  get everyProject(): boolean {
    return this.principal.projects === null;
  }

  sees(set: ProjectSet): boolean {
    return maySeeProjectSet(this.principal, set, this.tags);
  }

  seesProject(code: string): boolean {
    return canSeeProject(this.principal, code);
  }

  access(set: ProjectSet, what: string): ProjectSetAccess {
    return projectSetAccess(this.principal, set, what, this.tags);
  }

  assertMayChange(set: ProjectSet, what: string): void {
    assertMayChangeProjectSet(this.principal, set, what);
  }

  /** The set with only the caller's own project codes and tags. */
  visible(set: ProjectSet): ProjectSet {
    return visibleProjectSet(this.principal, set, this.tags);
  }
}

/** Builds callers' scopes, asking the catalog for the tags of a limited caller's projects. */
export class CallerScopes {
  constructor(private readonly catalog: CatalogClient) {}

  /** For objects that apply to projects by tag (policies, and gates through them). */
  async withTags(principal: Principal): Promise<CallerScope> {
    if (principal.projects === null) return new CallerScope(principal);
    const projects = await Promise.all(
      principal.projects.map((code) => this.catalog.getProject({ code }).catch(unlessNotFound)),
    );
    return new CallerScope(principal, [...new Set(projects.flatMap((p) => p?.tags ?? []))]);
  }
}
