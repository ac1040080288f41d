import { expect } from 'chai';
import { PERMISSION_KEYS, ROUTES } from '@bulwark/contracts';
import { readmeTable } from './readme-tables';

const SCOPES = ['project-set', 'project', 'organisation', 'unscoped', 'grants'];

/** The rows of the README's table of keys: key -> the project scopes the row names. */
function readmeScopes(): Map<string, string[]> {
  const table = readmeTable('| key | `project_scope` of its operations |', "the Authorization model's table of keys");
  return new Map(
    table.map(([key, scopes]) => {
      // The scope words, outside the parenthesised notes that say which operations have them.
      const words = scopes.replace(/\([^)]*\)/g, '').match(/[a-z-]+/g) ?? [];
      return [key.replace(/`/g, ''), [...new Set(words.filter((w) => SCOPES.includes(w)))].sort()];
    }),
  );
}

describe("README's authorization model", () => {
  it('lists every permission key with exactly the project scopes its operations have in the route table', () => {
    const fromRoutes = new Map<string, Set<string>>();
    for (const r of ROUTES)
      if (!r.gone && r.access.kind === 'permission')
        (fromRoutes.get(r.access.key) ?? fromRoutes.set(r.access.key, new Set()).get(r.access.key)!).add(
          r.access.scope,
        );
    const readme = readmeScopes();
    expect([...readme.keys()].sort()).to.deep.equal(PERMISSION_KEYS.map((k) => k.key).sort());
    for (const [key, scopes] of fromRoutes) expect(readme.get(key), key).to.deep.equal([...scopes].sort());
  });
});
