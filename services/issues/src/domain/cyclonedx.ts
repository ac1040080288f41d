import type { Suppression } from '@bulwark/findings';
import { VEX_JUSTIFICATIONS, type VexJustification, type VexResponse, type VexState } from '@bulwark/contracts';
import type { IssueRecord } from '../store/issues/issue-store';
import { STATUS } from './statuses';

// A layer's dependencies and their vulnerabilities as CycloneDX 1.6 JSON: the SBOM lists the
// components of the layer's latest uploaded SBOM; the VEX states, for every vulnerability issue of
// the layer, what Bulwark's status of it means (analysis.state). The VEX points into the SBOM with
// BOM-Links (urn:cdx:<serial>/1#<bom-ref>), the separation CycloneDX recommends: the SBOM changes
// with a new upload, the VEX with every triage decision.

export const CYCLONEDX_SPEC = '1.6';
const SCHEMA = 'http://cyclonedx.org/schema/bom-1.6.schema.json';

export interface SbomComponent {
  name: string;
  version: string;
  type: string;
  purl: string;
}

export interface LayerSbom {
  sbomId: string;
  fileName: string;
  createdAt: string;
  components: SbomComponent[];
}

interface Analysis {
  state: VexState;
  response?: VexResponse[];
  justification?: VexJustification;
  /** What a person wrote with their analysis. */
  detail?: string;
}

/**
 * Bulwark's built-in statuses as CycloneDX analysis (documented in the README, Exports). Risk
 * accepted is exploitable with the response will_not_fix (the spec's "vendor will not fix");
 * Suppressed is not_affected without a justification, since Bulwark does not record why; In
 * progress is exploitable with an update coming. Custom statuses are still being triaged.
 */
const ANALYSIS: Record<number, Analysis> = {
  [STATUS.new]: { state: 'in_triage' },
  [STATUS.reopen]: { state: 'in_triage' },
  [STATUS.confirmed]: { state: 'exploitable' },
  [STATUS.inProgress]: { state: 'exploitable', response: ['update'] },
  [STATUS.fixed]: { state: 'resolved' },
  [STATUS.falsePositive]: { state: 'false_positive' },
  [STATUS.riskAccepted]: { state: 'exploitable', response: ['will_not_fix'] },
  [STATUS.suppressed]: { state: 'not_affected' },
};

export const analysisOf = (statusId: number): Analysis => ANALYSIS[statusId] ?? { state: 'in_triage' };

const JUSTIFICATIONS = new Set<string>(VEX_JUSTIFICATIONS);

/** The suppression the scanner's report carried, when the issue has one. */
function suppressionOf(i: IssueRecord): Suppression | undefined {
  const s: unknown = i.suppression;
  return s && typeof s === 'object' && 'state' in s ? (s as Suppression) : undefined;
}

/**
 * An issue's analysis. A person's recorded analysis (PUT /issue/{id}/analysis) is stated as it is.
 * Otherwise, where the scanner's own VEX said not_affected with a CycloneDX justification
 * (ingestion makes that False positive) and nobody has since decided otherwise (still False positive
 * or Suppressed), the statement keeps that state and justification rather than losing the reason.
 */
function issueAnalysis(i: IssueRecord): Analysis {
  if (i.analysis)
    return {
      state: i.analysis.state,
      ...(i.analysis.justification ? { justification: i.analysis.justification } : {}),
      ...(i.analysis.response.length ? { response: i.analysis.response } : {}),
      ...(i.analysis.detail ? { detail: i.analysis.detail } : {}),
    };
  const base = analysisOf(i.statusId);
  const s = suppressionOf(i);
  const notAffected =
    s?.source === 'vex' && s.state === 'not_affected' && s.justification && JUSTIFICATIONS.has(s.justification);
  return notAffected && (base.state === 'false_positive' || base.state === 'not_affected')
    ? { state: 'not_affected', justification: s.justification as VexJustification }
    : base;
}

const COMPONENT_TYPES = new Set([
  'application',
  'framework',
  'library',
  'container',
  'platform',
  'operating-system',
  'device',
  'device-driver',
  'firmware',
  'file',
  'machine-learning-model',
  'data',
  'cryptographic-asset',
]);

/** The bom-ref of each SBOM component: its purl when that is unique in the SBOM, else its position. */
function componentRefs(components: SbomComponent[]): string[] {
  const seen = new Map<string, number>();
  for (const c of components) if (c.purl) seen.set(c.purl, (seen.get(c.purl) ?? 0) + 1);
  return components.map((c, i) => (c.purl && seen.get(c.purl) === 1 ? c.purl : `component-${i + 1}`));
}

const serialOf = (sbom: LayerSbom) => `urn:uuid:${sbom.sbomId}`;

function metadata(timestamp: string, layer: { id: string; name: string; projectCode: string }) {
  return {
    timestamp,
    tools: { components: [{ type: 'application', name: 'Bulwark' }] },
    component: { type: 'application', 'bom-ref': `layer-${layer.id}`, name: layer.name, group: layer.projectCode },
    properties: [
      { name: 'bulwark:layer_id', value: layer.id },
      { name: 'bulwark:project_code', value: layer.projectCode },
    ],
  };
}

const withProperty = (m: ReturnType<typeof metadata>, p: { name: string; value: string }) => ({
  ...m,
  properties: [...m.properties, p],
});

export interface LayerInfo {
  id: string;
  name: string;
  projectCode: string;
}

/** The SBOM: the layer's latest SBOM's components; its serial number is the stored SBOM's id. */
export function cyclonedxSbom(layer: LayerInfo, sbom: LayerSbom) {
  const refs = componentRefs(sbom.components);
  return {
    $schema: SCHEMA,
    bomFormat: 'CycloneDX',
    specVersion: CYCLONEDX_SPEC,
    serialNumber: serialOf(sbom),
    version: 1,
    metadata: withProperty(metadata(sbom.createdAt, layer), { name: 'bulwark:sbom_file_name', value: sbom.fileName }),
    components: sbom.components.map((c, i) => ({
      type: COMPONENT_TYPES.has(c.type) ? c.type : 'library',
      'bom-ref': refs[i],
      name: c.name,
      ...(c.version ? { version: c.version } : {}),
      ...(c.purl ? { purl: c.purl } : {}),
    })),
  };
}

const cvssRatings = (i: IssueRecord) =>
  [
    { score: i.cvssV4, method: 'CVSSv4' },
    { score: i.cvssV3, method: 'CVSSv3' },
    { score: i.cvssV2, method: 'CVSSv2' },
    { score: i.cvssUnknown, method: 'other' },
  ]
    .filter((r): r is { score: number; method: string } => r.score !== null)
    .map((r) => ({ score: r.score, severity: i.severity, method: r.method }));

/** Where an issue's library is in the SBOM: same name and version, or same name when the issue has no version. */
function sbomIndex(sbom: LayerSbom | undefined): (name: string, version: string | null) => number | undefined {
  const components = sbom?.components ?? [];
  const byName = new Map<string, number[]>();
  components.forEach((c, i) => byName.set(c.name, [...(byName.get(c.name) ?? []), i]));
  return (name, version) => {
    const candidates = byName.get(name) ?? [];
    return version ? candidates.find((i) => components[i].version === version) : candidates[0];
  };
}

/**
 * The VEX: one vulnerability per issue (its bom-ref is the issue id), affecting the SBOM's component
 * by BOM-Link, or a component listed in the VEX itself when the library is not in the SBOM (or the
 * layer has none).
 */
export function cyclonedxVex(
  layer: LayerInfo,
  sbom: LayerSbom | undefined,
  issues: IssueRecord[],
  statusNames: Map<number, string>,
  now: Date,
) {
  const refs = sbom ? componentRefs(sbom.components) : [];
  const find = sbomIndex(sbom);
  const local = new Map<string, { type: 'library'; 'bom-ref': string; name: string; version?: string }>();
  const affected = (i: IssueRecord): string | undefined => {
    if (!i.libName) return undefined;
    const at = find(i.libName, i.libVersion);
    if (sbom && at !== undefined) return `urn:cdx:${sbom.sbomId}/1#${encodeURIComponent(refs[at])}`;
    const key = `${i.libName}@${i.libVersion ?? ''}`;
    let c = local.get(key);
    if (!c)
      local.set(
        key,
        (c = {
          type: 'library',
          'bom-ref': `library-${local.size + 1}`,
          name: i.libName,
          ...(i.libVersion ? { version: i.libVersion } : {}),
        }),
      );
    return c['bom-ref'];
  };
  const vulnerabilities = issues.map((i) => {
    const id = i.cve ?? i.ruleId ?? i.vulnerabilityIds[0] ?? i.title;
    const { state, response, justification, detail } = issueAnalysis(i);
    const status = statusNames.get(i.statusId) ?? String(i.statusId);
    const reason = suppressionOf(i)?.justification;
    const ref = affected(i);
    const ratings = cvssRatings(i);
    return {
      'bom-ref': i.id,
      id,
      ...(/^CVE-\d{4}-\d+$/i.test(id)
        ? { source: { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id.toUpperCase()}` } }
        : {}),
      ...(i.vulnerabilityIds.filter((v) => v !== id).length
        ? {
            references: i.vulnerabilityIds.filter((v) => v !== id).map((v) => ({ id: v, source: { name: i.scanner } })),
          }
        : {}),
      ratings: ratings.length ? ratings : [{ severity: i.severity }],
      ...(i.cwes.length ? { cwes: i.cwes } : {}),
      ...(i.description ? { description: i.description } : {}),
      created: i.firstDetectedAt,
      updated: i.updatedAt,
      analysis: {
        state,
        ...(justification ? { justification } : {}),
        ...(response ? { response } : {}),
        detail: `${detail ? `${detail}\n` : ''}Bulwark status: ${status}${reason ? ` (the report: ${reason})` : ''}`,
        firstIssued: i.firstDetectedAt,
        lastUpdated: i.updatedAt,
      },
      ...(ref ? { affects: [{ ref }] } : {}),
      properties: [
        { name: 'bulwark:issue_id', value: i.id },
        { name: 'bulwark:status', value: status },
        { name: 'bulwark:tool', value: i.toolName },
      ],
    };
  });
  return {
    $schema: SCHEMA,
    bomFormat: 'CycloneDX',
    specVersion: CYCLONEDX_SPEC,
    version: 1,
    metadata: metadata(now.toISOString(), layer),
    ...(local.size ? { components: [...local.values()] } : {}),
    vulnerabilities,
  };
}
