import { expect } from 'chai';
import { AppError } from '@bulwark/platform';
import { pullRequestOf } from './pull-request';

describe('scanning: the pull request of an upload', () => {
  it('is absent without a number, and keeps the head commit in lower case', () => {
    expect(pullRequestOf(undefined)).to.equal(undefined);
    expect(pullRequestOf({})).to.equal(undefined);
    expect(pullRequestOf({ number: 7, head_sha: 'A'.repeat(40), base_branch: 'main' })).to.deep.equal({
      number: 7,
      head_sha: 'a'.repeat(40),
      base_branch: 'main',
    });
    expect(pullRequestOf({ number: 7 })).to.deep.equal({ number: 7, head_sha: null, base_branch: null });
  });

  it('refuses a head commit or base branch without the number, naming pull_request[number]', () => {
    for (const q of [{ head_sha: 'a'.repeat(40) }, { base_branch: 'main' }]) {
      const err = (() => {
        try {
          pullRequestOf(q);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).to.be.instanceOf(AppError);
      expect((err as AppError).details.map((d) => d.field)).to.deep.equal(['pull_request[number]']);
    }
  });
});
