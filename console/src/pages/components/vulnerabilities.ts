import { api } from '../../api';
import type { Issue, IssueList } from '../../types';

/** The most issues one read takes (the API's page limit). */
export const ISSUE_READ_LIMIT = 1000;

/**
 * A library's name as scanners and SBOMs write it, made comparable: Maven's "group:artifact" and
 * an SBOM's "group/artifact" are one name, in any case.
 */
const libraryKey = (name: string) => name.toLowerCase().replace(/:/g, '/');

/**
 * The names a scanner may give a component of an SBOM: as the SBOM writes it ("group/name"), Maven's
 * "group:name", and the name without its group (as a CycloneDX report's vulnerabilities name it).
 */
const spellings = (name: string) =>
  name.includes('/') ? [name, name.replace(/\//g, ':'), name.slice(name.lastIndexOf('/') + 1)] : [name];

/** A layer's issues naming one of these components, by the comparable name of the library they name. */
export async function vulnerabilitiesOf(layerId: string, names: string[]): Promise<Map<string, Issue[]>> {
  const found = new Map<string, Issue[]>();
  if (names.length === 0) return found;
  const list = await api<IssueList>('GET', '/issues', undefined, {
    'filter[layer]': layerId,
    'filter[lib_name]': [...new Set(names.flatMap(spellings))],
    limit: ISSUE_READ_LIMIT,
  });
  for (const issue of list.items) {
    if (!issue.lib_name) continue;
    const key = libraryKey(issue.lib_name);
    found.set(key, [...(found.get(key) ?? []), issue]);
  }
  return found;
}

/** An issue applies to a component of this version when either side leaves the version out, or both name it alike. */
const affects = (issue: Issue, version: string | null) =>
  !version || !issue.lib_version || issue.lib_version === version;

/** The issues (from vulnerabilitiesOf) that name this component, under any of its spellings, once each. */
export function issuesOfComponent(found: Map<string, Issue[]>, name: string, version: string | null): Issue[] {
  const issues = new Map<string, Issue>();
  for (const spelling of spellings(name))
    for (const issue of found.get(libraryKey(spelling)) ?? []) if (affects(issue, version)) issues.set(issue.id, issue);
  return [...issues.values()];
}

/** One layer a CVE reaches: its issues naming the CVE, and the components (library and version) they name. */
export interface Reach {
  projectCode: string;
  layerId: string;
  issues: number;
  components: string[];
}

/** The projects and layers whose issues name a CVE, by project then layer; `total` says how many issues name it. */
export async function cveReach(cve: string): Promise<{ reach: Reach[]; read: number; total: number }> {
  const list = await api<IssueList>('GET', '/issues', undefined, {
    'filter[cve]': cve,
    'filter[exclude_duplicates]': true,
    limit: ISSUE_READ_LIMIT,
  });
  const byLayer = new Map<string, Reach & { seen: Set<string> }>();
  for (const issue of list.items) {
    const at = byLayer.get(issue.layer_id) ?? {
      projectCode: issue.project_code,
      layerId: issue.layer_id,
      issues: 0,
      components: [],
      seen: new Set<string>(),
    };
    at.issues += 1;
    const component = issue.lib_name ? [issue.lib_name, issue.lib_version].filter(Boolean).join(' ') : undefined;
    if (component && !at.seen.has(component)) {
      at.seen.add(component);
      at.components.push(component);
    }
    byLayer.set(issue.layer_id, at);
  }
  const reach = [...byLayer.values()]
    .map(({ seen: _seen, ...r }) => r)
    .sort((a, b) => a.projectCode.localeCompare(b.projectCode) || a.layerId.localeCompare(b.layerId));
  return { reach, read: list.items.length, total: list.total };
}
