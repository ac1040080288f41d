import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

export const ROOT = path.resolve(__dirname, '../../..');

/** The body rows of the README's table whose header line is `header`, each split into its trimmed cells. */
export function readmeTable(header: string, what: string): string[][] {
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const start = lines.indexOf(header);
  expect(start, what).to.be.greaterThan(-1);
  const rows = lines.slice(start + 2);
  return rows
    .slice(
      0,
      rows.findIndex((l) => !l.startsWith('|')),
    )
    .map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}
