import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { catalogProjectsMigration } from '../src/migrations/0020-catalog-projects';

// Migration 0020 merges the two tables issues kept of the catalog's projects; no fact may be lost.
for (const backend of DATABASE_BACKENDS) {
  describe(`catalog_projects migration on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(
        this,
        'issues',
        migrations.filter((m) => m !== catalogProjectsMigration),
      );
    });
    after(async () => t?.close());

    it('keeps each project\u2019s criticality and tags, whichever table knew it', async () => {
      await t.db('project_criticality').insert([
        { project_code: 'both', criticality: 'high' },
        { project_code: 'rated', criticality: 'low' },
      ]);
      await t.db.raw(
        "insert into sla_projects (project_code, tags) values ('both', '{a,b}'), ('tagged', '{c}'), ('unknown-tags', null)",
      );
      await catalogProjectsMigration.up(t.db);
      const rows = await t.db('catalog_projects').orderBy('project_code').select('project_code', 'criticality', 'tags');
      expect(rows).to.deep.equal([
        { project_code: 'both', criticality: 'high', tags: ['a', 'b'] },
        { project_code: 'rated', criticality: 'low', tags: null },
        { project_code: 'tagged', criticality: null, tags: ['c'] },
        { project_code: 'unknown-tags', criticality: null, tags: null },
      ]);
      expect(await t.db.schema.hasTable('project_criticality')).to.equal(false);
      expect(await t.db.schema.hasTable('sla_projects')).to.equal(false);
    });
  });
}
