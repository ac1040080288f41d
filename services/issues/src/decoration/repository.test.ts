import { expect } from 'chai';
import { githubRepository } from './repository';

describe('issues decoration: the repository of a source URL', () => {
  it('reads owner and name from https, ssh and scp-like URLs', () => {
    const shop = { owner: 'acme', repo: 'shop', webUrl: 'https://github.com/acme/shop' };
    expect(githubRepository('https://github.com/acme/shop.git')).to.deep.equal(shop);
    expect(githubRepository('https://github.com/acme/shop/')).to.deep.equal(shop);
    expect(githubRepository('ssh://git@github.com/acme/shop.git')).to.deep.equal(shop);
    expect(githubRepository('git@github.com:acme/shop.git')).to.deep.equal(shop);
    expect(githubRepository('http://127.0.0.1:3000/acme/shop.git')?.webUrl).to.equal('http://127.0.0.1:3000/acme/shop');
  });

  it('answers undefined for a path that is not owner/name or a name that could leave it', () => {
    for (const url of [
      'https://github.com/acme',
      'https://gitlab.example/group/sub/shop.git',
      'https://github.com/acme/..',
      'https://github.com/acme/sh%20op',
      'file:///srv/acme/shop.git',
      'not a url',
    ])
      expect(githubRepository(url), url).to.equal(undefined);
  });
});
