import type { ProjectCriticality } from '@bulwark/contracts';

/** Severity's weight when an issue has no CVSS score. */
const SEVERITY_WEIGHT: Record<string, number> = { critical: 1, high: 0.8, medium: 0.5, low: 0.25, info: 0.05 };
const CRITICALITY_WEIGHT: Record<ProjectCriticality, number> = { critical: 1, high: 0.9, medium: 0.8, low: 0.6 };

export interface RiskInput {
  severity: string;
  cvssMax: number | null;
  epss: number | null;
  knownExploited: boolean;
  projectCriticality: ProjectCriticality;
}

export interface RiskFactors {
  /** The highest CVSS over 10, else the severity's weight. */
  impact: number;
  impact_from: 'cvss' | 'severity';
  /** 1 when known exploited, else 0.3 + 0.7 × EPSS, else 0.5 without EPSS. */
  likelihood: number;
  likelihood_from: 'kev' | 'epss' | 'none';
  criticality: ProjectCriticality;
  criticality_weight: number;
}

const clamp = (n: number, max: number) => Math.min(Math.max(n, 0), max);

/**
 * The factors of an issue's risk score, as the README states the formula:
 * risk_score = round(100 × impact × likelihood × criticality_weight). PostgreSQL computes the stored
 * score with the same formula (issues migration 0016), which the issue view's factors explain.
 */
export function riskFactors(i: RiskInput): RiskFactors {
  const likelihood = i.knownExploited ? 1 : i.epss !== null ? 0.3 + 0.7 * clamp(i.epss, 1) : 0.5;
  return {
    impact: i.cvssMax !== null ? clamp(i.cvssMax, 10) / 10 : (SEVERITY_WEIGHT[i.severity] ?? SEVERITY_WEIGHT.info),
    impact_from: i.cvssMax !== null ? 'cvss' : 'severity',
    likelihood: Math.round(likelihood * 1e6) / 1e6,
    likelihood_from: i.knownExploited ? 'kev' : i.epss !== null ? 'epss' : 'none',
    criticality: i.projectCriticality,
    criticality_weight: CRITICALITY_WEIGHT[i.projectCriticality],
  };
}

/** The score of these factors (the database's stored figure is this one). */
export const riskScoreOf = (f: RiskFactors) => Math.round(100 * f.impact * f.likelihood * f.criticality_weight);
