import { expect } from 'chai';
import { bulwarkStatusFor, groupForTickets, pushFor, renderTicket, StatusMapping, TicketIssue } from './tickets';
import { STATUS } from './statuses';

const issue = (id: string, over: Partial<TicketIssue> = {}): TicketIssue => ({
  id,
  projectCode: 'WEB',
  title: `Title ${id}`,
  description: null,
  severity: 'high',
  ruleId: 'r1',
  cve: null,
  cwes: [78],
  filePath: 'app.py',
  startLine: 4,
  libName: null,
  libVersion: null,
  toolName: 'Semgrep',
  ...over,
});

describe('issues domain: tickets from issues', () => {
  const cases: [string, TicketIssue[], 'issue' | 'rule' | 'cve', string[][]][] = [
    ['one ticket per issue', [issue('a'), issue('b')], 'issue', [['a'], ['b']]],
    [
      'by rule: a shared rule is one ticket',
      [issue('a'), issue('b'), issue('c', { ruleId: 'r2' })],
      'rule',
      [['a', 'b'], ['c']],
    ],
    [
      'by rule: the same rule in two projects is two tickets',
      [issue('a'), issue('b', { projectCode: 'API' })],
      'rule',
      [['a'], ['b']],
    ],
    [
      'by rule: issues without a rule get one each',
      [issue('a', { ruleId: null }), issue('b', { ruleId: null })],
      'rule',
      [['a'], ['b']],
    ],
    [
      'by CVE',
      [issue('a', { cve: 'CVE-1' }), issue('b', { cve: 'CVE-1' }), issue('c', { cve: 'CVE-2' }), issue('d')],
      'cve',
      [['a', 'b'], ['c'], ['d']],
    ],
  ];
  for (const [name, issues, by, expected] of cases) {
    it(name, () => expect(groupForTickets(issues, by).map((g) => g.issues.map((i) => i.id))).to.deep.equal(expected));
  }

  it('renders the default title and text, listing every issue of a group', () => {
    const [one] = groupForTickets([issue('a')], 'issue');
    expect(renderTicket(one, {}).summary).to.equal('[Bulwark] high: Title a');
    const [group] = groupForTickets(
      [issue('a'), issue('b', { filePath: null, libName: 'lodash', libVersion: '4.17.0' })],
      'rule',
    );
    const text = renderTicket(group, {});
    expect(text.summary).to.equal('[Bulwark] 2 issues: r1');
    expect(text.description)
      .to.contain('- [high] Title a at app.py:4 (Bulwark issue a)')
      .and.contain('in lodash 4.17.0 (Bulwark issue b)');
  });

  it('fills templates and cuts titles to 255 characters', () => {
    const [g] = groupForTickets([issue('a', { title: 'x'.repeat(400), cve: 'CVE-2024-1' })], 'issue');
    const text = renderTicket(g, {
      summary: '{{cve}} {{ title }}',
      description: '{{cwes}} in {{project_code}} by {{tool_name}}',
    });
    expect(text.summary).to.have.length(255);
    expect(text.summary.startsWith('CVE-2024-1 xxx')).to.equal(true);
    expect(text.description).to.equal('CWE-78 in WEB by Semgrep');
  });
});

describe('issues domain: status sync with a tracker', () => {
  const mapping: StatusMapping = {
    to_bulwark: [{ tracker_status: 'Closed', status_id: STATUS.fixed }],
    to_tracker: [{ status_id: STATUS.reopen, tracker_status: 'In Progress' }],
  };
  it('maps a tracker status to a Bulwark status, ignoring case; unmapped ones move nothing', () => {
    expect(bulwarkStatusFor(mapping, 'closed')).to.equal(STATUS.fixed);
    expect(bulwarkStatusFor(mapping, 'Resolved')).to.equal(undefined);
  });
  const pushes: [string, number, string][] = [
    ['a mapped status moves the ticket', STATUS.reopen, 'transition'],
    ['Fixed, unmapped, is a comment', STATUS.fixed, 'comment'],
    ['another unmapped status stays in Bulwark', STATUS.confirmed, 'none'],
  ];
  for (const [name, to, kind] of pushes) {
    it(name, () => expect(pushFor(mapping, 'i1', 'X', to, 'alice').kind).to.equal(kind));
  }
  it('says in the comment which issue changed, to what and by whom', () => {
    expect(pushFor(mapping, 'i1', 'Reopen', STATUS.reopen, 'alice')).to.deep.equal({
      kind: 'transition',
      status: 'In Progress',
      comment: 'Bulwark issue i1 is now Reopen (by alice).',
    });
  });
});
