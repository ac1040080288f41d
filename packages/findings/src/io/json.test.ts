import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseReport } from '../index';
import { DEFAULT_JSON_LIMITS, LazyArray, readJson } from './json';
import { BufferSource } from './source';
import { CORPUS } from '../../test/paths';

/** Tiny arrays and chunks force the streaming path and elements that span chunk boundaries. */
const tiny = { ...DEFAULT_JSON_LIMITS, lazyArrayBytes: 64, chunkBytes: 7 };

describe('JSON reader', function () {
  it('streams large arrays and yields the same findings as reading whole', function () {
    for (const rel of [
      'sarif/flawfinder.sarif',
      'trivy/legacy_many_vulns.json',
      'semgrep/many_findings.json',
      'nuclei/many_findings.json',
      'trufflehog/v2_many_vulns.json',
    ]) {
      const file = path.join(CORPUS, 'defectdojo', rel);
      const whole = parseReport(file).findings;
      const streamed = parseReport(file, { jsonLimits: tiny }).findings;
      expect(streamed, rel).to.deep.equal(whole);
    }
  });

  it('leaves large arrays on disk as lazy arrays', function () {
    const file = fs.readFileSync(path.join(CORPUS, 'defectdojo', 'sarif', 'flawfinder.sarif'));
    const doc = readJson(new BufferSource(file), { ...DEFAULT_JSON_LIMITS, lazyArrayBytes: 4096 }) as {
      runs: { results: unknown }[];
    };
    expect(doc.runs).to.be.an('array');
    expect(doc.runs[0].results).to.be.instanceOf(LazyArray);
    expect([...(doc.runs[0].results as LazyArray)]).to.have.length(54);
  });

  it('handles escapes, quotes and brackets inside strings across chunk boundaries', function () {
    const values = ['a\\"b', 'x\\\\', '[{]}', '\\\\\\"', 'ünïcødé ✓'];
    const text = JSON.stringify({ items: values.map((v) => ({ v, pad: 'p'.repeat(40) })) });
    const doc = readJson(new BufferSource(Buffer.from(text)), tiny) as { items: Iterable<{ v: string }> };
    expect([...doc.items].map((i) => i.v)).to.deep.equal(values);
  });

  it('reads JSON lines as a sequence of values', function () {
    const doc = readJson(new BufferSource(Buffer.from('{"a":1}\n{"a":2}\n\n{"a":3}\n')), tiny);
    expect([...(doc as LazyArray)]).to.deep.equal([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });
});
