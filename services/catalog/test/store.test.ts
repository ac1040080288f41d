import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DATABASE_BACKENDS, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { decorationStore } from '../src/store/decorations';
import { fieldStore } from '../src/store/fields';
import { layerStore } from '../src/store/layers';
import { projectStore } from '../src/store/projects';
import { sealedStore } from '../src/store/sealed';
import { sourceStore, SourceWrite } from '../src/store/sources';
import { toolStore, ToolWrite } from '../src/store/tools';

const source = (name: string, access: SourceWrite['access'], url = `https://git.example/${name}.git`): SourceWrite => ({
  name,
  description: '',
  sourceTypeId: 1,
  url,
  branchName: null,
  authMethod: 'Login/Password',
  login: 'bot',
  passwordSealed: `v1:k:${name}`,
  sshKeySealed: null,
  access,
});
const tool = (name: string, version: string, access: ToolWrite['access'], url?: string): ToolWrite => ({
  name,
  description: '',
  typeId: 10,
  version,
  settings: url ? { url } : {},
  apiTokenSealed: null,
  access,
});
const q = { page: 1, limit: 50 };

for (const backend of DATABASE_BACKENDS) {
  describe(`catalog stores on ${backend.name}`, function () {
    let t: TestDatabase;
    before(async function () {
      t = await backend.open(this, 'catalog', migrations);
      for (const code of ['alpha', 'beta', 'gamma'])
        await projectStore.insert(t.db, code, {
          name: `Project ${code}`,
          description: '',
          tags: code === 'gamma' ? ['web', 'pci'] : ['web'],
        });
    });
    after(async () => t?.close());

    it('keeps project codes unique in any case, deleted projects included', async () => {
      expect(await projectStore.codeTaken(t.db, 'ALPHA')).to.equal(true);
      let error: unknown;
      await projectStore.insert(t.db, 'Alpha', { name: 'x', description: '', tags: [] }).catch((e) => (error = e));
      expect((error as { code?: string }).code).to.equal('23505');
    });

    it('lists projects by scope, tag, archive and deletion state, and offers the filter values', async () => {
      await projectStore.insert(t.db, 'delta', { name: 'Delta', description: '', tags: ['legacy'] });
      await projectStore.setArchived(t.db, 'beta', true);
      await projectStore.setDeleted(t.db, 'delta', true);
      const codes = async (extra: Record<string, unknown>) =>
        (await projectStore.list(t.db, { ...q, scope: null, ...extra })).items.map((p) => p.code);
      expect(await codes({})).to.deep.equal(['alpha', 'beta', 'gamma']);
      expect(await codes({ scope: ['gamma', 'delta'] })).to.deep.equal(['gamma']);
      expect(await codes({ searchTag: 'PC' })).to.deep.equal(['gamma']);
      expect(await codes({ archived: true })).to.deep.equal(['beta']);
      expect(await codes({ deletedOnly: true })).to.deep.equal(['delta']);
      expect(await codes({ withDeleted: true, searchName: 'delt' })).to.deep.equal(['delta']);
      expect(await codes({ searchCode: '%' })).to.deep.equal([]);
      expect(await projectStore.filterValues(t.db, null)).to.deep.equal({
        tags: ['pci', 'web'],
        archived: [false, true],
        deleted: [false, true],
      });
      expect((await projectStore.filterValues(t.db, ['alpha'])).tags).to.deep.equal(['web']);
      expect(await projectStore.live(t.db, ['alpha', 'delta', 'nope'])).to.deep.equal(new Set(['alpha']));
      await projectStore.setArchived(t.db, 'beta', false);
    });

    it('stores field values and drops them with their field', async () => {
      const id = await fieldStore.insert(t.db, { name: 'Owner', type: 'uuid', required: false, description: '' });
      expect(await fieldStore.nameTaken(t.db, 'owner')).to.equal(true);
      expect(await fieldStore.nameTaken(t.db, 'owner', id)).to.equal(false);
      await projectStore.setFieldValues(t.db, 'alpha', [{ field_id: id, value: randomUUID() }]);
      expect((await projectStore.get(t.db, 'alpha'))!.fieldValues.map((v) => v.fieldId)).to.deep.equal([id]);
      expect(await fieldStore.delete(t.db, id)).to.equal(1);
      expect((await projectStore.get(t.db, 'alpha'))!.fieldValues).to.deep.equal([]);
    });

    it('shows a scoped caller global sources and those of its projects, and the sources usable in a project', async () => {
      const [g, a, bc] = [randomUUID(), randomUUID(), randomUUID()];
      await sourceStore.insert(t.db, g, source('shared', { accessType: 'global', projectCodes: [] }));
      await sourceStore.insert(t.db, a, source('alpha-only', { accessType: 'project', projectCodes: ['alpha'] }));
      await sourceStore.insert(
        t.db,
        bc,
        source('beta-gamma', { accessType: 'project', projectCodes: ['beta', 'gamma'] }),
      );
      const names = async (extra: Record<string, unknown>) =>
        (await sourceStore.list(t.db, { ...q, scope: null, ...extra })).items.map((s) => s.name);
      expect(await names({})).to.deep.equal(['alpha-only', 'beta-gamma', 'shared']);
      expect(await names({ scope: ['gamma'] })).to.deep.equal(['beta-gamma', 'shared']);
      expect(await names({ scope: [] })).to.deep.equal(['shared']);
      expect(await names({ usableIn: 'alpha' })).to.deep.equal(['alpha-only', 'shared']);
      expect(await names({ searchSource: 'BETA-g' })).to.deep.equal(['beta-gamma']);
      expect((await sourceStore.get(t.db, bc))!.access).to.deep.equal({
        accessType: 'project',
        projectCodes: ['beta', 'gamma'],
      });
      await sourceStore.update(t.db, bc, source('beta-gamma', { accessType: 'global', projectCodes: [] }));
      expect((await sourceStore.get(t.db, bc))!.access.projectCodes).to.deep.equal([]);
    });

    it('finds tools by exact version, version and URL search, and type', async () => {
      await toolStore.insert(
        t.db,
        randomUUID(),
        tool('Sonar', '9.9', { accessType: 'global', projectCodes: [] }, 'https://sonar-old.example'),
      );
      await toolStore.insert(
        t.db,
        randomUUID(),
        tool('Sonar', '10.4', { accessType: 'global', projectCodes: [] }, 'https://sonar.example'),
      );
      const versions = async (extra: Record<string, unknown>) =>
        (await toolStore.list(t.db, { ...q, scope: null, ...extra })).items.map((x) => x.version);
      expect(await versions({ version: '9.9' })).to.deep.equal(['9.9']);
      expect(await versions({ searchVersion: '10' })).to.deep.equal(['10.4']);
      expect(await versions({ searchUrl: 'SONAR-OLD' })).to.deep.equal(['9.9']);
      expect(await versions({ typeIds: [1] })).to.deep.equal([]);
      expect((await sealedStore.all(t.db)).filter((s) => s.table === 'sources').length).to.be.greaterThan(2);
    });

    it('keeps one decoration a source, its token among the sealed values a key rotation seals again, gone with the source', async () => {
      const id = randomUUID();
      await sourceStore.insert(t.db, id, source('decorated', { accessType: 'global', projectCodes: [] }));
      const write = {
        enabled: true,
        platform: 'github' as const,
        apiUrl: 'https://api.github.com',
        tokenSealed: 'sealed-1',
        reviewMinSeverity: 'high' as const,
      };
      await decorationStore.put(t.db, id, write);
      await decorationStore.put(t.db, id, { ...write, enabled: false });
      expect(await decorationStore.get(t.db, id)).to.deep.include({ enabled: false, tokenSealed: 'sealed-1' });
      const sealed = (await sealedStore.all(t.db)).find((v) => v.table === 'source_decorations' && v.id === id);
      if (!sealed) throw new Error('the decoration token is not among the sealed values');
      await sealedStore.replace(t.db, sealed, 'sealed-2');
      expect((await decorationStore.get(t.db, id))?.tokenSealed).to.equal('sealed-2');
      await sourceStore.delete(t.db, id);
      expect(await decorationStore.get(t.db, id)).to.equal(undefined);
    });

    it('lists layers of live projects in scope, by project and template flag', async () => {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      await layerStore.insert(t.db, ids[0], {
        projectCode: 'alpha',
        name: 'code',
        description: '',
        layerTypeId: 1,
        isTemplate: true,
        templateId: null,
      });
      await layerStore.insert(t.db, ids[1], {
        projectCode: 'gamma',
        name: 'code',
        description: '',
        layerTypeId: 1,
        isTemplate: false,
        templateId: ids[0],
      });
      await layerStore.insert(t.db, ids[2], {
        projectCode: 'delta',
        name: 'gone',
        description: '',
        layerTypeId: 2,
        isTemplate: false,
        templateId: null,
      });
      const list = async (extra: Record<string, unknown>) =>
        (await layerStore.list(t.db, { ...q, scope: null, ...extra })).items.map((l) => l.id);
      expect(await list({})).to.deep.equal([ids[0], ids[1]]);
      expect(await list({ scope: ['gamma'] })).to.deep.equal([ids[1]]);
      expect(await list({ isTemplate: true })).to.deep.equal([ids[0]]);
      expect(await list({ projectCode: 'alpha', searchName: 'CO' })).to.deep.equal([ids[0]]);
      expect((await layerStore.get(t.db, ids[1]))!.templateId).to.equal(ids[0]);
    });
  });
}
