import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { InternalAuth } from './auth';

describe('internal auth', () => {
  const secret = 'an-internal-secret-of-at-least-32-characters';
  const principal = {
    userId: 'u1',
    username: 'alice',
    permissions: { 'issues.issues': ['r' as const] },
    projects: ['p1'],
    tokenKind: 'login' as const,
    tokenId: 't1',
  };

  it('verifies what it signs, and tokens signed with the secret as text (a process before the key object) alike', () => {
    const auth = new InternalAuth(secret, 'gateway');
    expect(auth.verify(auth.forPrincipal(principal))).to.deep.equal({ svc: 'gateway', principal });
    const asText = jwt.sign({ svc: 'issues' }, secret, {
      algorithm: 'HS256',
      issuer: 'bulwark-internal',
      audience: 'bulwark-services',
      expiresIn: 60,
    });
    expect(auth.verify(asText).svc).to.equal('issues');
    expect(jwt.verify(auth.forService(), secret, { algorithms: ['HS256'] })).to.include({ svc: 'gateway' });
  });

  it('refuses a token signed with another secret, and none at all', () => {
    const other = new InternalAuth(`${secret}-other`, 'gateway');
    expect(() => new InternalAuth(secret, 'issues').verify(other.forService())).to.throw(
      'Invalid internal credentials',
    );
    expect(() => new InternalAuth(secret, 'issues').verify(undefined)).to.throw('did not come through the gateway');
  });
});
