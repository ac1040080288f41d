import { expect } from 'chai';
import { buildSla } from './sla';

describe('reporting domain: SLA section', () => {
  it('counts open issues by severity and SLA state, closed ones not at all', () => {
    const section = buildSla([
      { severity: 'critical', open: true, slaState: 'breached', count: 2 },
      { severity: 'critical', open: true, slaState: 'breached', count: 1 },
      { severity: 'high', open: true, slaState: 'due_soon', count: 4 },
      { severity: 'high', open: true, slaState: '', count: 5 },
      { severity: 'low', open: true, slaState: 'on_track', count: 6 },
      { severity: 'low', open: false, slaState: '', count: 100 },
    ]);
    expect(section.breached).to.equal(3);
    expect(section.by_severity).to.deep.equal([
      { severity: 'critical', on_track: 0, due_soon: 0, breached: 3, without_sla: 0 },
      { severity: 'high', on_track: 0, due_soon: 4, breached: 0, without_sla: 5 },
      { severity: 'medium', on_track: 0, due_soon: 0, breached: 0, without_sla: 0 },
      { severity: 'low', on_track: 6, due_soon: 0, breached: 0, without_sla: 0 },
      { severity: 'info', on_track: 0, due_soon: 0, breached: 0, without_sla: 0 },
    ]);
  });
});
