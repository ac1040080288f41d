import { expect } from 'chai';
import { retryBackoffSeconds } from './retry-backoff';

describe('issues: the backoff of a failed delivery', () => {
  it('backs off 5 s doubling, at most an hour', () => {
    expect([1, 2, 3, 12, 30].map(retryBackoffSeconds)).to.deep.equal([5, 10, 20, 3600, 3600]);
  });
});
