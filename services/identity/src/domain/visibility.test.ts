import { expect } from 'chai';
import type { Principal } from '@bulwark/platform';
import { visibleGroupProjects, visibleSystemScopes } from './visibility';

describe('identity: what a caller limited to some projects sees of roles and groups', () => {
  const nobody: Principal = {
    userId: 'u',
    username: 'u',
    permissions: {},
    projects: [],
    tokenKind: 'login',
    tokenId: 't',
  };
  const caller = (projects: string[] | null): Principal => ({ ...nobody, projects });
  const ofA = caller(['A']);

  it('a role of every project or touching A, with only A of its projects; not a role of B', () => {
    expect(visibleSystemScopes(ofA, [])).to.deep.equal([]);
    expect(visibleSystemScopes(ofA, ['project:A', 'project:B'])).to.deep.equal(['project:A']);
    expect(visibleSystemScopes(ofA, ['project:B'])).to.equal(undefined);
    expect(visibleSystemScopes(caller(null), ['project:B'])).to.deep.equal(['project:B']);
  });

  it('a group of every project, of A, or by a tag A carries (in any case), with only what is A’s', () => {
    const group = (projectCodes: string[], projectTags: string[] = []) => ({ projectCodes, projectTags });
    expect(visibleGroupProjects(ofA, group([]), [])).to.deep.equal(group([]));
    expect(visibleGroupProjects(ofA, group(['A', 'B'], ['PCI', 'web']), ['pci'])).to.deep.equal(group(['A'], ['PCI']));
    expect(visibleGroupProjects(ofA, group(['B'], ['web']), ['pci'])).to.equal(undefined);
    expect(visibleGroupProjects(caller(null), group(['B']), [])).to.deep.equal(group(['B']));
  });
});
