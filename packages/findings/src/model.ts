/** One scale for every tool; the tool's own word is kept in `toolSeverity`. */
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

export type ToolCategory = 'sast' | 'sca' | 'secrets' | 'iac' | 'dast' | 'container';

export const TOOL_CATEGORIES: readonly ToolCategory[] = ['sast', 'sca', 'secrets', 'iac', 'dast', 'container'];

/** Where a finding's suppression or VEX state came from, and what it says. */
export interface Suppression {
  /** SARIF `suppressions[].kind`/`status`, CycloneDX `analysis.state`, Trivy `Status`, ... */
  state: string;
  source: 'sarif' | 'vex' | 'tool';
  justification?: string;
}

export interface CloudResource {
  /** The provider's identity of the resource: an ARN, a Kubernetes object path, an asset id. */
  id: string;
  type?: string;
  name?: string;
  region?: string;
  /** AWS account, Azure subscription, GCP project. */
  account?: string;
}

export interface Cvss {
  vector: string;
  score?: number;
}

export interface Finding {
  tool: string;
  toolCategory: ToolCategory;
  /** The format id the report was read as (see `formats`). */
  format: string;
  ruleId?: string;
  title: string;
  description?: string;
  severity: Severity;
  /** The tool's own severity word or number, as written in the report. */
  toolSeverity?: string;
  confidence?: string;
  /** Tool-specific category or tags, e.g. `sast`, `dockerfile`, `secret`. */
  tags: string[];
  cwes: number[];
  /** CVE first when present, then GHSA and other ids, without duplicates. */
  vulnerabilityIds: string[];
  references: string[];
  mitigation?: string;

  library?: { name: string; version?: string; fixedVersion?: string; purl?: string; ecosystem?: string };

  filePath?: string;
  startLine?: number;
  endLine?: number;
  snippet?: string;
  /**
   * The tool's own identity of a result where it has one that does not depend on line numbers
   * (Checkmarx SimilarityId, a Retire.js advisory); the fingerprint uses it instead of the snippet
   * or vulnerability id. See fingerprint.ts.
   */
  locator?: string;

  /** DAST: one entry per affected request. */
  endpoints: { url: string; method?: string; parameter?: string }[];

  /** Cloud, cluster and host findings: the resource the finding is about (ARN, Kubernetes object, asset). */
  resource?: CloudResource;

  cvssV2?: Cvss;
  cvssV3?: Cvss;
  cvssV4?: Cvss;
  /** A score given without a vector or version. */
  cvssScore?: number;

  epss?: { score: number; percentile?: number };
  knownExploited?: boolean;

  /** Fingerprints the tool wrote itself, keyed by their name in the report. */
  toolFingerprints: Record<string, string>;
  /** Bulwark's own stable fingerprint; see fingerprint.ts. Filled by `finalize`. */
  fingerprint: string;
  suppression?: Suppression;
  /** SARIF `baselineState` and similar. */
  baselineState?: string;
  detectedAt?: string;
  /** How many records of the report were merged into this finding. */
  occurrences: number;
}

/** The fields a parser must set; the rest get empty defaults in `newFinding`. */
export type FindingInit = Pick<Finding, 'tool' | 'toolCategory' | 'title' | 'severity'> & Partial<Finding>;

export interface Component {
  name: string;
  /** Namespace of the name where the ecosystem has one (Maven group, npm scope, Composer vendor). */
  group?: string;
  version?: string;
  purl?: string;
  type?: string;
  /** SPDX ids, licence names or SPDX expressions, as the SBOM states them. */
  licenses?: string[];
}

export interface ParseResult {
  format: string;
  findings: Finding[];
  /** SBOM components, where the report lists them (CycloneDX). */
  components: Component[];
}
