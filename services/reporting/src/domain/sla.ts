import { SLA_STATES, type SlaState } from '@bulwark/contracts';
import { SEVERITIES, type Severity, type SlaSection } from './snapshot';

const isSlaState = (s: string): s is SlaState => (SLA_STATES as readonly string[]).includes(s);

/** Open issues of one severity and SLA state ('' without a due date), as the issues service counts them. */
export interface SlaGroup {
  severity: Severity;
  open: boolean;
  slaState: string;
  count: number;
}

/** The compliance report's SLA section: the scope's open issues by severity and SLA state (README "SLAs"). */
export function buildSla(groups: SlaGroup[]): SlaSection {
  const rows = SEVERITIES.map((severity) => ({ severity, on_track: 0, due_soon: 0, breached: 0, without_sla: 0 }));
  for (const g of groups) {
    if (!g.open) continue;
    const row = rows[SEVERITIES.indexOf(g.severity)];
    if (isSlaState(g.slaState)) row[g.slaState] += g.count;
    else row.without_sla += g.count;
  }
  return { by_severity: rows, breached: rows.reduce((n, r) => n + r.breached, 0) };
}
