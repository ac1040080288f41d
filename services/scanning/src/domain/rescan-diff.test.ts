import { expect } from 'chai';
import { BaseClaims, boundedDiff, contentIndex } from './rescan-diff';

const hashes = (...contents: number[]) => Uint8Array.from(contents.flatMap((c) => [c, c >> 8]));

describe('rescan diffs', () => {
  it('indexes a scan by content, one sequence number each from 1, and gives up on a repeated content', () => {
    const index = contentIndex(hashes(7, 9, 11), 2);
    expect(index && [...index.values()]).to.deep.equal([1, 2, 3]);
    expect(contentIndex(hashes(1, 1, 2), 2)).to.equal(undefined);
  });

  it('keeps a diff of at most a quarter of either scan and drops a larger one', () => {
    const changes = { added: [8], vanished: [8] };
    expect(boundedDiff(changes, 8, 8)).to.equal(changes);
    expect(boundedDiff({ added: [4], vanished: [4] }, 4, 4)).to.equal(undefined);
    expect(boundedDiff({ added: [], vanished: [] }, 10, 10)).to.deep.equal({ added: [], vanished: [] });
  });

  it('pairs each base content with one finding, and takes a claim back only from the finding that made it', () => {
    const claims = new BaseClaims(
      new Map([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]),
    );
    expect(claims.claim('a', 0)).to.equal(1);
    expect(claims.claim('a', 5), 'a second finding with the content is added').to.equal(undefined);
    expect(claims.claim('x', 1)).to.equal(undefined);
    expect(claims.claim('b', 2)).to.equal(2);
    claims.release('b', 9);
    expect(claims.unclaimed(), 'another finding cannot give b back').to.deep.equal([3]);
    claims.release('b', 2);
    expect(claims.unclaimed()).to.deep.equal([2, 3]);
    expect(claims.claim('b', 7), 'given back, it can be claimed again').to.equal(2);
  });
});
