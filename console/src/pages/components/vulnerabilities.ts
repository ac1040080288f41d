import { api } from '../../api';
import type { IssueCountGroups, Severity } from '../../types';
import { ORIGINALS_ONLY } from '../issue-list/view';

type CountGroup = IssueCountGroups['groups'][number];

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

/** Issues of a layer naming one library (as the issues spell it), version, CVE and severity, and how many. */
export interface VulnerabilityGroup {
  libName: string;
  libVersion: string | null;
  cve: string | null;
  severity: Severity;
  count: number;
}

/**
 * A layer's issues naming one of these components, counted by the server per library, version, CVE
 * and severity (so right at any number of issues), by the comparable name of the library they name.
 */
export async function vulnerabilitiesOf(layerId: string, names: string[]): Promise<Map<string, VulnerabilityGroup[]>> {
  const found = new Map<string, VulnerabilityGroup[]>();
  if (names.length === 0) return found;
  const counted = await api<IssueCountGroups>('GET', '/issues/count/grouped', undefined, {
    group_by: ['severity', 'lib_name', 'lib_version', 'cve'],
    'filter[layer]': layerId,
    'filter[lib_name]': [...new Set(names.flatMap(spellings))],
    ...ORIGINALS_ONLY,
  });
  for (const g of counted.groups) {
    if (!g.lib_name || !g.severity) continue;
    const key = libraryKey(g.lib_name);
    const group = { libName: g.lib_name, libVersion: g.lib_version ?? null, cve: g.cve ?? null, severity: g.severity };
    found.set(key, [...(found.get(key) ?? []), { ...group, count: g.count ?? 0 }]);
  }
  return found;
}

/** A group applies to a component of this version when either side leaves the version out, or both name it alike. */
const affects = (group: VulnerabilityGroup, version: string | null) =>
  !version || !group.libVersion || group.libVersion === version;

/**
 * The vulnerabilities (from vulnerabilitiesOf) of one component, under any of its spellings: each CVE
 * once at its highest severity (the server answers the most severe first), then the issues naming no
 * CVE, by severity, with their counts.
 */
export function vulnerabilitiesOfComponent(
  found: Map<string, VulnerabilityGroup[]>,
  name: string,
  version: string | null,
): VulnerabilityGroup[] {
  const byCve = new Map<string, VulnerabilityGroup>();
  const withoutCve = new Map<Severity, VulnerabilityGroup>();
  for (const spelling of spellings(name))
    for (const g of found.get(libraryKey(spelling)) ?? []) {
      if (!affects(g, version)) continue;
      if (g.cve) {
        const seen = byCve.get(g.cve);
        byCve.set(g.cve, seen ? { ...seen, count: seen.count + g.count } : g);
      } else {
        const seen = withoutCve.get(g.severity);
        withoutCve.set(g.severity, seen ? { ...seen, count: seen.count + g.count } : g);
      }
    }
  return [...byCve.values(), ...withoutCve.values()];
}

/** One layer a CVE reaches: its issues naming the CVE, and the components (library and version) they name. */
export interface Reach {
  projectCode: string;
  layerId: string;
  issues: number;
  components: string[];
}

const componentOf = (g: CountGroup) => (g.lib_name ? [g.lib_name, g.lib_version].filter(Boolean).join(' ') : undefined);

/**
 * The projects and layers whose issues name a CVE, by project then layer, counted by the server per
 * project, layer, library and version: right at any number of issues.
 */
export async function cveReach(cve: string): Promise<Reach[]> {
  const counted = await api<IssueCountGroups>('GET', '/issues/count/grouped', undefined, {
    group_by: ['project_code', 'layer_id', 'lib_name', 'lib_version'],
    'filter[cve]': cve,
    ...ORIGINALS_ONLY,
  });
  const byLayer = new Map<string, Reach>();
  for (const g of counted.groups) {
    if (!g.project_code || !g.layer_id) continue;
    const at = byLayer.get(g.layer_id) ?? {
      projectCode: g.project_code,
      layerId: g.layer_id,
      issues: 0,
      components: [],
    };
    at.issues += g.count ?? 0;
    const component = componentOf(g);
    if (component && !at.components.includes(component)) at.components.push(component);
    byLayer.set(g.layer_id, at);
  }
  return [...byLayer.values()].sort(
    (a, b) => a.projectCode.localeCompare(b.projectCode) || a.layerId.localeCompare(b.layerId),
  );
}
