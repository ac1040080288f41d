import { expect } from 'chai';
import {
  allowedTargets,
  DEFAULT_TRANSITIONS,
  isAllowedTransition,
  STATUS,
  statusForSuppression,
  statusOnDetection,
} from './statuses';

describe('issues domain: statuses', () => {
  const T = DEFAULT_TRANSITIONS.map(([from, to]) => ({ from, to }));
  const transitions: [number, number, boolean][] = [
    [STATUS.new, STATUS.confirmed, true],
    [STATUS.new, STATUS.reopen, false],
    [STATUS.fixed, STATUS.reopen, true],
    [STATUS.fixed, STATUS.new, false],
    [STATUS.reopen, STATUS.fixed, true],
    [STATUS.suppressed, STATUS.confirmed, false],
  ];
  for (const [from, to, allowed] of transitions)
    it(`${from} -> ${to} is ${allowed ? 'allowed' : 'refused'}`, () =>
      expect(isAllowedTransition(T, from, to)).to.equal(allowed));
  it('names the allowed targets in order', () =>
    expect(allowedTargets(T, STATUS.fixed)).to.deep.equal([STATUS.reopen]));

  const suppressions: [string, 'sarif' | 'vex' | 'tool', number | undefined][] = [
    ['accepted', 'sarif', STATUS.suppressed],
    ['not_affected', 'vex', STATUS.falsePositive],
    ['false_positive', 'tool', STATUS.falsePositive],
    ['NOT EXPLOITABLE', 'tool', STATUS.falsePositive],
    ['resolved', 'vex', STATUS.fixed],
    ['will_not_fix', 'vex', STATUS.riskAccepted],
    ['WONTFIX', 'tool', STATUS.riskAccepted],
    ['exploitable', 'vex', STATUS.confirmed],
    ['in_triage', 'vex', undefined],
    ['suppressed', 'tool', STATUS.suppressed],
  ];
  for (const [state, source, status] of suppressions)
    it(`maps ${source} ${state} to ${status}`, () => expect(statusForSuppression({ state, source })).to.equal(status));

  const detections: [number | undefined, string | undefined, number][] = [
    [undefined, undefined, STATUS.new],
    [undefined, 'not_affected', STATUS.falsePositive],
    [STATUS.fixed, undefined, STATUS.reopen],
    [STATUS.new, 'not_affected', STATUS.falsePositive],
    [STATUS.confirmed, 'not_affected', STATUS.confirmed],
    [STATUS.inProgress, undefined, STATUS.inProgress],
    [STATUS.riskAccepted, undefined, STATUS.riskAccepted],
    [STATUS.fixed, 'resolved', STATUS.reopen],
  ];
  for (const [current, state, next] of detections) {
    it(`a detection of a ${current ?? 'new'} issue${state ? ` (${state})` : ''} gives ${next}`, () =>
      expect(statusOnDetection(current, state ? { state, source: 'vex' } : undefined)).to.equal(next));
  }
});
