import { expect } from 'chai';
import { boundedDiff, contentIndex } from './rescan-diff';

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
});
