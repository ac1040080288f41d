import { expect } from 'chai';
import { FORMATS } from './formats';

describe('the format registry', () => {
  it('names the tool and report kind in each title and the versions tested apart, for every format', () => {
    for (const f of FORMATS) {
      expect(f.testedWith.trim(), f.id).to.not.equal('');
      // Versions belong in testedWith: "1.2", "2.x", "0.3–0.10", "tested with ...".
      expect(f.title, f.id).to.not.match(/\d\.\d|\d\.x|–|tested/i);
    }
  });
});
