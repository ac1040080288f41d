import { expect } from 'chai';
import { changedMappedRoles } from './oidc';

describe('identity: which roles a change of the single sign-on role mapping grants or takes', () => {
  it('names each role a group claim value gains or loses, and none that stays', () => {
    expect(changedMappedRoles({}, {})).to.deep.equal([]);
    expect(changedMappedRoles({ devs: ['reader'] }, { devs: ['reader'] })).to.deep.equal([]);
    expect(changedMappedRoles({ devs: ['reader'] }, { devs: ['reader', 'writer'] })).to.deep.equal(['writer']);
    expect(changedMappedRoles({ devs: ['reader', 'admin'] }, { devs: ['reader'] })).to.deep.equal(['admin']);
    // The same role under another claim value reaches other people: a change.
    expect(changedMappedRoles({ devs: ['reader'] }, { ops: ['reader'] })).to.deep.equal(['reader']);
  });
});
