import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { roleStore } from '../src/store/roles';
import { tokenStore } from '../src/store/tokens';
import { userStore } from '../src/store/users';

for (const backend of DATABASE_BACKENDS) {
  describe(`identity stores on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'identity', migrations);
    });
    after(async () => t?.close());

    it('finds users by username in any case and refuses a duplicate in any case', async () => {
      const id = randomUUID();
      await userStore.insert(t.db, id, 'Carol', { passwordHash: 'h', displayName: 'Carol' });
      expect((await userStore.byUsername(t.db, 'carol'))!.id).to.equal(id);
      let error: unknown;
      await userStore.insert(t.db, randomUUID(), 'CAROL', {}).catch((e) => (error = e));
      expect((error as { code?: string }).code).to.equal('23505');
    });

    it('lists users with role, deletion and search filters, paged', async () => {
      await roleStore.insert(t.db, 'auditor', {
        name: 'Auditor',
        permissions: { 'issues.issues': ['r'] },
        description: '',
        domainGroup: [],
        systemScopes: [],
      });
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      for (const [n, id] of ids.entries())
        await userStore.insert(t.db, id, `dave${n}`, { displayName: `Dave ${n}`, needPasswordChange: n === 0 });
      await userStore.setRoles(t.db, ids[1], ['auditor']);
      await userStore.setDeleted(t.db, ids[2], true);
      const q = { page: 1, limit: 50 };
      expect((await userStore.list(t.db, { ...q, role: 'auditor' })).items.map((u) => u.id)).to.deep.equal([ids[1]]);
      expect((await userStore.list(t.db, { ...q, searchUsername: 'dave' })).total).to.equal(2);
      expect((await userStore.list(t.db, { ...q, searchUsername: 'dave', withDeleted: true })).total).to.equal(3);
      expect((await userStore.list(t.db, { ...q, deletedOnly: true })).items.map((u) => u.id)).to.deep.equal([ids[2]]);
      expect(
        (await userStore.list(t.db, { ...q, searchUsername: 'DAVE', needPasswordChange: true })).items.map((u) => u.id),
      ).to.deep.equal([ids[0]]);
      const page2 = await userStore.list(t.db, { page: 2, limit: 1, searchUsername: 'dave' });
      expect(page2.items.map((u) => u.username)).to.deep.equal(['dave1']);
      expect(page2.total).to.equal(2);
      // LIKE wildcards in a search are literal.
      expect((await userStore.list(t.db, { ...q, searchUsername: '%' })).total).to.equal(0);
    });

    it('counts role holders and removes a role from its users on delete', async () => {
      await roleStore.insert(t.db, 'temp', {
        name: 'Temp',
        permissions: {},
        description: '',
        domainGroup: [],
        systemScopes: ['project:web'],
      });
      const id = randomUUID();
      await userStore.insert(t.db, id, 'erin', {});
      await userStore.setRoles(t.db, id, ['temp']);
      expect(await roleStore.holders(t.db, 'temp')).to.equal(1);
      expect((await roleStore.get(t.db, 'temp'))!.systemScopes).to.deep.equal(['project:web']);
      expect(
        (await roleStore.list(t.db, { page: 1, limit: 10, searchName: 'tem' })).items.map((r) => r.code),
      ).to.deep.equal(['temp']);
      await roleStore.delete(t.db, 'temp');
      expect(await roleStore.get(t.db, 'temp')).to.equal(undefined);
      expect((await userStore.get(t.db, id))!.roles).to.deep.equal([]);
    });

    it('stores only token hashes, finds by hash, revokes, and records use', async () => {
      const userId = randomUUID();
      await userStore.insert(t.db, userId, 'frank', {});
      const id = randomUUID();
      await tokenStore.insert(t.db, {
        id,
        userId,
        name: 'ci',
        hash: 'abc123',
        expiresAt: new Date(Date.now() + 60000).toISOString(),
      });
      const found = await tokenStore.byHash(t.db, 'abc123');
      expect(found!.id).to.equal(id);
      expect(found!.lastUsedAt).to.equal(null);
      await tokenStore.touch(t.db, id);
      expect((await tokenStore.byHash(t.db, 'abc123'))!.lastUsedAt).to.be.a('string');
      await tokenStore.revoke(t.db, id);
      expect(
        (await tokenStore.listForUser(t.db, userId, { page: 1, limit: 10, includeRevoked: false })).total,
      ).to.equal(0);
      expect(
        (await tokenStore.listForUser(t.db, userId, { page: 1, limit: 10, includeRevoked: true })).items[0].revokedAt,
      ).to.be.a('string');
    });
  });
}
