import { projectSet, ProjectSet } from '@bulwark/platform';
import type { CallerScope } from '../caller-scope';
import type { ProjectMapping, TrackerRecord } from '../store/trackers';

/** The `projects` entry that maps every project without one of its own. */
const EVERY_PROJECT = '*';

/** A tracker applies to the projects it maps; a `*` mapping makes it apply to every project. */
export function trackerProjects(mappings: readonly { project_code: string }[]): ProjectSet {
  const codes = mappings.map((m) => m.project_code);
  return projectSet({ every: codes.includes(EVERY_PROJECT), codes: codes.filter((c) => c !== EVERY_PROJECT) });
}

/** The tracker as the caller may see it: the mappings of its own projects (and the `*` one) only. */
export function trackerInScope(scope: CallerScope, t: TrackerRecord): TrackerRecord {
  if (scope.everyProject) return t;
  return {
    ...t,
    projects: t.projects.filter((m) => m.project_code === EVERY_PROJECT || scope.seesProject(m.project_code)),
  };
}

/** The tracker's mapping for a project: the project's own, else the `*` one. */
export function mappingFor(t: TrackerRecord, projectCode: string): ProjectMapping | undefined {
  return (
    t.projects.find((p) => p.project_code === projectCode) ?? t.projects.find((p) => p.project_code === EVERY_PROJECT)
  );
}
