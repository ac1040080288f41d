import { expect } from 'chai';
import { repositoryOf } from './repository';

describe('issues decoration: the repository of a source URL', () => {
  it('reads owner and name from https, ssh and scp-like URLs', () => {
    const shop = { path: 'acme/shop', webUrl: 'https://github.com/acme/shop' };
    expect(repositoryOf('https://github.com/acme/shop.git', 'github')).to.deep.equal(shop);
    expect(repositoryOf('https://github.com/acme/shop/', 'github')).to.deep.equal(shop);
    expect(repositoryOf('ssh://git@github.com/acme/shop.git', 'github')).to.deep.equal(shop);
    expect(repositoryOf('git@github.com:acme/shop.git', 'github')).to.deep.equal(shop);
    expect(repositoryOf('http://127.0.0.1:3000/acme/shop.git', 'github')?.webUrl).to.equal(
      'http://127.0.0.1:3000/acme/shop',
    );
  });

  it('reads a GitLab project under nested groups', () => {
    expect(repositoryOf('https://gitlab.example/group/sub/shop.git', 'gitlab')).to.deep.equal({
      path: 'group/sub/shop',
      webUrl: 'https://gitlab.example/group/sub/shop',
    });
    expect(repositoryOf('git@gitlab.example:group/shop.git', 'gitlab')?.path).to.equal('group/shop');
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
      expect(repositoryOf(url, 'github'), url).to.equal(undefined);
    for (const url of ['https://gitlab.example/shop', 'https://gitlab.example/group/../shop'])
      expect(repositoryOf(url, 'gitlab'), url).to.equal(undefined);
  });
});
