import { expect } from 'chai';
import { buildSnapshot } from './summary';

describe('reporting domain', () => {
  it('adds the issues service\u2019s groups up into totals, projects and tools, open and not', () => {
    const meta = {
      id: 'r',
      name: 'n',
      type: 'summary',
      author: 'a',
      created_at: '',
      generated_at: '',
      period: 'all',
      from: null,
      to: '',
      project_codes: [],
    };
    const g = (
      projectCode: string,
      toolName: string,
      severity: string,
      statusId: number,
      open: boolean,
      count: number,
    ) => ({ projectCode, toolName, category: 'sast', severity, statusId, open, count });
    const s = buildSnapshot(
      meta,
      [
        g('a', 'Semgrep', 'high', 1, true, 3),
        g('a', 'Semgrep', 'high', 4, false, 2),
        g('b', 'Trivy', 'critical', 8, true, 1),
        g('b', 'Trivy', 'odd', 1, true, 1),
      ],
      [
        { id: 1, name: 'New' },
        { id: 4, name: 'Fixed' },
      ],
      [],
      10,
    );
    expect(s.totals).to.deep.include({
      issues: 7,
      open: 5,
      by_severity: { critical: 1, high: 5, medium: 0, low: 0, info: 1 },
    });
    expect(s.totals.by_status).to.deep.equal([
      { status_id: 1, name: 'New', count: 4 },
      { status_id: 4, name: 'Fixed', count: 2 },
      { status_id: 8, name: '8', count: 1 },
    ]);
    expect(s.projects).to.deep.equal([
      { project_code: 'a', total: 5, open: 3, open_by_severity: { critical: 0, high: 3, medium: 0, low: 0, info: 0 } },
      { project_code: 'b', total: 2, open: 2, open_by_severity: { critical: 1, high: 0, medium: 0, low: 0, info: 1 } },
    ]);
    expect(s.tools).to.deep.equal([
      { tool_name: 'Semgrep', category: 'sast', total: 5, open: 3 },
      { tool_name: 'Trivy', category: 'sast', total: 2, open: 2 },
    ]);
  });
});
