import fs from 'node:fs';
import os from 'node:os';
import { expect } from 'chai';
import { TextSpill } from './spill';

describe('text spill', () => {
  it('reads back every text, from its buffer, from the file, and one larger than the buffer, and leaves no file', () => {
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`bulwark-spill-${process.pid}-`));
    const spill = new TextSpill();
    const texts = Array.from({ length: 3000 }, (_, i) => `{"n":${i},"text":"${'é→'.repeat(i % 400)}"}`);
    texts.splice(1500, 0, 'x'.repeat(3 << 20));
    const records = texts.map((t) => spill.append(t));
    expect(records).to.deep.equal(texts.map((_, i) => i));
    for (const i of [0, 1499, 1500, 1501, texts.length - 1]) expect(spill.read(records[i])).to.equal(texts[i]);
    expect(texts.every((t, i) => spill.read(i) === t)).to.equal(true);
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`bulwark-spill-${process.pid}-`))).to.deep.equal(
      before,
    );
    spill.close();
  });
});
