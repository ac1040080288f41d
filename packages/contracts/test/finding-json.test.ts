import { expect } from 'chai';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importReport } from '@bulwark/findings';
import { AppError } from '@bulwark/platform';
import { decodeJson, findingJson } from '../src';

const CORPUS = path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus');

function* files(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (!entry.name.endsWith('.md')) yield full;
  }
}

describe('findings_json, the findings scanning hands to issues', () => {
  it('passes every finding the parsers read from the shared corpus unchanged', () => {
    let findings = 0;
    for (const file of files(CORPUS)) {
      let read;
      try {
        read = importReport(fs.readFileSync(file));
      } catch {
        continue; // Reports the parsers refuse never reach the seam.
      }
      for (const f of read.findings) {
        const text = JSON.stringify(f);
        expect(decodeJson(findingJson, text, 'findings_json'), file).to.deep.equal(JSON.parse(text));
        findings++;
      }
    }
    expect(findings).to.be.greaterThan(1000);
  });

  it('refuses a finding of another shape, naming the field', () => {
    const good = importReport(
      fs.readFileSync(path.join(CORPUS, 'sarif-sdk', fs.readdirSync(path.join(CORPUS, 'sarif-sdk'))[0])),
    ).findings[0];
    expect(good).to.be.an('object');
    const bad = [
      [{ ...good, severity: 'urgent' }, 'findings_json.severity'],
      [{ ...good, fingerprint: undefined }, 'findings_json.fingerprint'],
      [{ ...good, cwes: ['79'] }, 'findings_json.cwes.0'],
    ] as const;
    for (const [finding, field] of bad) {
      let error: unknown;
      try {
        decodeJson(findingJson, JSON.stringify(finding), 'findings_json');
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).details.map((d) => d.field)).to.include(field);
    }
    expect(() => decodeJson(findingJson, '{"tool":', 'findings_json')).to.throw(AppError, 'not JSON');
  });
});
