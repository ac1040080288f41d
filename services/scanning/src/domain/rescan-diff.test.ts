import { expect } from 'chai';
import { compareFindings } from './rescan-diff';

const hashes = (...contents: number[]) => Uint8Array.from(contents.flatMap((c) => [c, c >> 8]));

describe('compareFindings', () => {
  it('pairs findings by content whatever their order, and names what was added and what vanished by sequence number', () => {
    const previous = hashes(...Array.from({ length: 20 }, (_, i) => i + 1));
    // 1 and 2 are gone, 21 is new, the rest moved around.
    const current = hashes(21, ...Array.from({ length: 18 }, (_, i) => 20 - i));
    expect(compareFindings(previous, current, 2)).to.deep.equal({ added: [1], vanished: [1, 2] });
  });

  it('finds nothing changed in the same findings', () => {
    const same = hashes(...Array.from({ length: 10 }, (_, i) => i + 1));
    expect(compareFindings(same, same, 2)).to.deep.equal({ added: [], vanished: [] });
  });

  it('gives up when more than a quarter changed, or a content repeats', () => {
    expect(compareFindings(hashes(1, 2, 3, 4), hashes(1, 2, 3, 5), 2)).to.equal(undefined);
    expect(compareFindings(hashes(1, 2, 3, 4, 5, 6, 7, 8), hashes(1, 2, 3, 4, 5, 6, 7, 9), 2)).to.deep.equal({
      added: [8],
      vanished: [8],
    });
    expect(compareFindings(hashes(1, 1, 2), hashes(1, 2), 2)).to.equal(undefined);
  });
});
