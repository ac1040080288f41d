import { expect } from 'chai';
import { AppError } from '../errors';
import { assertCredentialStaysWith, credentialOrigin } from './credential-origin';

describe('where a stored credential may go', () => {
  it('names scheme, host and port, the default port written out, for http(s), ssh, scp-like Git and LDAP URLs', () => {
    expect(credentialOrigin('https://Git.Example/org/app.git')).to.equal('https://git.example:443');
    expect(credentialOrigin('https://git.example:443/x')).to.equal('https://git.example:443');
    expect(credentialOrigin('http://git.example/x')).to.equal('http://git.example:80');
    expect(credentialOrigin('https://git.example:8443/x')).to.equal('https://git.example:8443');
    expect(credentialOrigin('git@Git.Example:org/app.git')).to.equal('ssh://git.example:22');
    expect(credentialOrigin('ssh://git@git.example/org/app.git')).to.equal('ssh://git.example:22');
    expect(credentialOrigin('ldaps://dc1.corp')).to.equal('ldaps://dc1.corp:636');
    expect(credentialOrigin('not a url')).to.equal(undefined);
  });

  it('lets it go to the same origin only: another scheme, host or port is a 400 naming the field', () => {
    assertCredentialStaysWith('https://git.example/a.git', 'https://git.example:443/b.git', 'settings.url');
    assertCredentialStaysWith(['ldap://dc1.corp', 'ldap://dc2.corp'], 'ldap://dc2.corp:389', 'urls');
    for (const url of [
      'http://git.example/a.git',
      'https://git.example:8443/a.git',
      'https://other.example/a.git',
      'https://git.example.evil.example/a.git',
      'ssh://git@git.example/a.git',
      'garbage',
    ]) {
      try {
        assertCredentialStaysWith('https://git.example/a.git', url, 'settings.url');
        expect.fail(`${url} was let through`);
      } catch (err) {
        expect(err, url).to.be.instanceOf(AppError);
        expect((err as AppError).details.map((d) => d.field)).to.deep.equal(['settings.url']);
      }
    }
  });
});
