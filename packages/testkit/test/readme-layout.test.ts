import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { readmeTable, ROOT } from './readme-tables';

/** The paths in the first column of the README's layout table (the one headed `| path | what |`). */
function layoutPaths(): string[] {
  return readmeTable('| path | what |', 'the layout table').flatMap(([paths]) =>
    [...paths.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\/$/, '')),
  );
}

/**
 * The folders a newcomer looks for, from what version control holds: the top level's, and one level
 * into those that group workspaces, deployments and documents.
 */
function trackedFolders(): string[] {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const grouped = ['packages', 'services', 'deploy', 'docs'];
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    if (parts.length < 2) continue;
    folders.add(grouped.includes(parts[0]) && parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  return [...folders].filter((f) => !grouped.includes(f)).sort();
}

describe("README's layout table", () => {
  it('names every folder of the tree, and only paths that exist', () => {
    const named = layoutPaths();
    expect(
      trackedFolders().filter((f) => !named.includes(f)),
      'folders the layout table does not name',
    ).to.deep.equal([]);
    expect(
      named.filter((p) => !fs.existsSync(path.join(ROOT, p))),
      'paths the layout table names that do not exist',
    ).to.deep.equal([]);
  });
});
