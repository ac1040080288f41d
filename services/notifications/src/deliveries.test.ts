import { expect } from 'chai';
import { retryDelaySeconds } from './deliveries';

describe('notifications domain', () => {
  it('waits 1 s after a failed attempt, doubling up to 10 minutes', () => {
    expect([1, 2, 3, 4, 10, 11, 30].map(retryDelaySeconds)).to.deep.equal([1, 2, 4, 8, 512, 600, 600]);
  });
});
