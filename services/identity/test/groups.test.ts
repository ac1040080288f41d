import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AUTH_EPOCH_KEY, createLogger, MemoryCache } from '@bulwark/platform';
import { DATABASE_BACKENDS, TestDatabase, testServiceData } from '@bulwark/testkit';
import { claimGroupKeys, ldapGroupKeys } from '../src/domain/groups';
import { copyProjectTags } from '../src/events/project-tags';
import { migrations } from '../src/migrations';
import { groupStore } from '../src/store/groups';
import { roleStore } from '../src/store/roles';
import { userStore } from '../src/store/users';

for (const backend of DATABASE_BACKENDS) {
  describe(`identity group store on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'identity', migrations);
      await roleStore.insert(
        t.db,
        'admin',
        { name: 'Administrator', permissions: {}, description: '', domainGroup: [], systemScopes: [] },
        true,
      );
      await roleStore.insert(t.db, 'reader', {
        name: 'Reader',
        permissions: { 'catalog.projects': ['r'] },
        description: '',
        domainGroup: [],
        systemScopes: [],
      });
    });
    after(async () => t?.close());

    const write = (name: string, extra: Partial<Parameters<typeof groupStore.insert>[2]> = {}) => ({
      name,
      description: '',
      userIds: [],
      domainGroup: [],
      roles: [],
      projectTags: [],
      projectCodes: [],
      ...extra,
    });

    it('finds a user\u2019s groups by direct membership and by the directory groups of its last login', async () => {
      const [named, directory, other] = [randomUUID(), randomUUID(), randomUUID()];
      for (const [i, id] of [named, directory, other].entries())
        await userStore.insert(t.db, id, `member${i}`, { passwordHash: 'h' });
      const g1 = randomUUID();
      const g2 = randomUUID();
      await groupStore.insert(t.db, g1, write('Named', { userIds: [named], roles: ['reader'], projectTags: ['PCI'] }));
      await groupStore.insert(
        t.db,
        g2,
        write('By directory', { domainGroup: ['CN=Devs,DC=x', 'appsec'], roles: ['reader'] }),
      );
      await groupStore.setDirectoryGroups(t.db, directory, [...ldapGroupKeys([{ dn: 'cn=devs, dc=x', name: 'devs' }])]);
      expect((await groupStore.grantsOf(t.db, named)).map((g) => [g.name, g.roles, g.projectTags])).to.deep.equal([
        ['Named', ['reader'], ['PCI']],
      ]);
      expect((await groupStore.grantsOf(t.db, directory)).map((g) => g.name)).to.deep.equal(['By directory']);
      expect(await groupStore.grantsOf(t.db, other)).to.deep.equal([]);
      await groupStore.setDirectoryGroups(t.db, directory, claimGroupKeys(['AppSec']));
      expect((await groupStore.grantsOf(t.db, directory)).map((g) => g.name)).to.deep.equal(['By directory']);
      await groupStore.setDirectoryGroups(t.db, directory, []);
      expect(await groupStore.grantsOf(t.db, directory)).to.deep.equal([]);
    });

    it('keeps project tags, telling when a change may concern a group', async () => {
      // A group names "pci" (as PCI, above).
      expect(await groupStore.putProjectTags(t.db, 'shop', ['PCI', 'web'])).to.equal(true);
      expect(await groupStore.putProjectTags(t.db, 'shop', ['web', 'pci'])).to.equal(false);
      expect(await groupStore.putProjectTags(t.db, 'blog', ['web'])).to.equal(false);
      expect(await groupStore.putProjectTags(t.db, 'shop', ['web'])).to.equal(true);
      expect(await groupStore.putProjectTags(t.db, 'shop', ['pci'], true)).to.equal(false);
      expect(await groupStore.putProjectTags(t.db, 'pay', ['pci'], true)).to.equal(true);
      expect(Object.fromEntries(await groupStore.projectsTagged(t.db, ['PCI', 'WEB']))).to.deep.equal({
        pci: ['pay'],
        web: ['blog', 'shop'],
      });
    });

    it('lists by name and project tag, paged', async () => {
      const page = await groupStore.list(t.db, { page: 1, limit: 1, searchProjectTags: 'pc' });
      expect(page.items.map((g) => g.name)).to.deep.equal(['Named']);
      expect(page.total).to.equal(1);
      expect((await groupStore.list(t.db, { page: 2, limit: 1 })).items.map((g) => g.name)).to.deep.equal(['Named']);
      expect(
        (await groupStore.list(t.db, { page: 1, limit: 50, searchName: 'DIRECT' })).items.map((g) => g.name),
      ).to.deep.equal(['By directory']);
    });

    it('copies the catalog’s pages of project tags once, adding only the projects it lacks, and moves the auth epoch', async () => {
      const catalog = Array.from({ length: 1203 }, (_, i) => ({
        code: `p${String(i).padStart(4, '0')}`,
        tags: i % 2 ? ['pci'] : ['other'],
      }));
      catalog.push({ code: 'shop', tags: ['other'] });
      const asked: string[] = [];
      const list = async (req: { afterCode: string; limit: number }) => {
        asked.push(req.afterCode);
        return {
          projects: catalog
            .filter((p) => p.code > req.afterCode)
            .sort((a, b) => a.code.localeCompare(b.code))
            .slice(0, req.limit),
        };
      };
      const cache = new MemoryCache();
      expect(await copyProjectTags(list, testServiceData(t.db), cache, createLogger('test'))()).to.equal(true);
      expect(asked).to.deep.equal(['', 'p0499', 'p0999']);
      expect(await cache.get(AUTH_EPOCH_KEY)).to.equal('1');
      const pci = (await groupStore.projectsTagged(t.db, ['pci'])).get('pci')!;
      expect(pci).to.include.members(['p0001', 'p1201', 'pay']);
      expect(pci).not.to.include('p0002');
      // "shop" was kept from an event (tags ["web"]): the older page does not overwrite it.
      expect((await groupStore.projectsTagged(t.db, ['web'])).get('web')).to.include('shop');
    });

    it('counts administrators through a group, named or by directory group', async () => {
      const [local, dirUser] = [randomUUID(), randomUUID()];
      await userStore.insert(t.db, local, 'local_admin', { passwordHash: 'h' });
      await userStore.insert(t.db, dirUser, 'dir_admin', { activeDirectory: true });
      await groupStore.insert(
        t.db,
        randomUUID(),
        write('Admins', { userIds: [local], domainGroup: ['admins'], roles: ['admin'] }),
      );
      await groupStore.setDirectoryGroups(t.db, dirUser, claimGroupKeys(['Admins']));
      expect([...(await userStore.workingAdminIds(t.db, 'admin', false))]).to.deep.equal([local]);
      expect([...(await userStore.workingAdminIds(t.db, 'admin', true))].sort()).to.deep.equal([local, dirUser].sort());
    });
  });
}
