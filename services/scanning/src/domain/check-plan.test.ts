import { expect } from 'chai';
import { PlanError, planCheckCreate, planCheckUpdate } from './check-plan';

const tag = (tag_name: string, commit?: string) => (commit ? { tag_name, commit } : { tag_name });

describe('check and group rules of the API guide', () => {
  describe('creation (rules 1, 2)', () => {
    it('rule 1: more than one tag creates a group, one check per tag', () => {
      expect(planCheckCreate([tag('main'), tag('dev', 'abc')])).to.deep.equal({
        group: true,
        tags: [tag('main'), tag('dev', 'abc')],
      });
    });
    it('rule 2: one tag creates no group', () => {
      expect(planCheckCreate([tag('main')])).to.deep.equal({ group: false, tags: [tag('main')] });
    });
    it('rule 2: no tags creates no group', () => {
      expect(planCheckCreate(undefined)).to.deep.equal({ group: false, tags: [undefined] });
      expect(planCheckCreate([])).to.deep.equal({ group: false, tags: [undefined] });
    });
    it('refuses a tag given twice, naming the element', () => {
      expect(() => planCheckCreate([tag('main'), tag('main')]))
        .to.throw(PlanError)
        .with.property('problems')
        .deep.equal([{ field: 'tags[1].tag_name', problem: 'repeats the tag of element 0' }]);
    });
  });

  describe('update (rules 4 to 9)', () => {
    const single = { id: 'c1', groupId: null };
    const member = { id: 'c1', groupId: 'g1' };
    const rows: [string, Parameters<typeof planCheckUpdate>, ReturnType<typeof planCheckUpdate>][] = [
      [
        'rule 4: without grouped_checks only the path check, even in a group',
        [member, ['c1', 'c2'], undefined],
        { update: [{ checkId: 'c1' }], create: [], detach: [], group: 'none' },
      ],
      [
        'rule 5: no group and two elements creates a group the path check joins',
        [single, [], [{ check_id: 'c1', taginfo: tag('main') }, { taginfo: tag('dev') }]],
        { update: [{ checkId: 'c1', tag: tag('main') }], create: [tag('dev')], detach: [], group: 'create' },
      ],
      [
        'rule 5: the path check joins even when it is not listed',
        [single, [], [{ taginfo: tag('a') }, { taginfo: tag('b') }]],
        { update: [{ checkId: 'c1', tag: undefined }], create: [tag('a'), tag('b')], detach: [], group: 'create' },
      ],
      [
        'rule 6: no group and one element: only the path check, with that tag',
        [single, [], [{ taginfo: tag('release') }]],
        { update: [{ checkId: 'c1', tag: tag('release') }], create: [], detach: [], group: 'none' },
      ],
      [
        'rule 6: no group and no element: only the path check',
        [single, [], []],
        { update: [{ checkId: 'c1', tag: undefined }], create: [], detach: [], group: 'none' },
      ],
      [
        'rules 7, 8: existing group: listed checks take their tags, new elements become checks',
        [
          member,
          ['c1', 'c2'],
          [{ check_id: 'c1', taginfo: tag('m') }, { check_id: 'c2', taginfo: tag('d') }, { taginfo: tag('x') }],
        ],
        {
          update: [
            { checkId: 'c1', tag: tag('m') },
            { checkId: 'c2', tag: tag('d') },
          ],
          create: [tag('x')],
          detach: [],
          group: 'keep',
        },
      ],
      [
        'rule 9: a group check absent from the list leaves the group',
        [
          member,
          ['c1', 'c2', 'c3'],
          [
            { check_id: 'c1', taginfo: tag('m') },
            { check_id: 'c2', taginfo: tag('d') },
          ],
        ],
        {
          update: [
            { checkId: 'c1', tag: tag('m') },
            { checkId: 'c2', tag: tag('d') },
          ],
          create: [],
          detach: ['c3'],
          group: 'keep',
        },
      ],
      [
        'rule 9 with rule 2: a group left with one check is dissolved',
        [member, ['c1', 'c2'], [{ check_id: 'c2', taginfo: tag('d') }]],
        { update: [{ checkId: 'c2', tag: tag('d') }], create: [], detach: ['c1'], group: 'dissolve' },
      ],
    ];
    for (const [name, args, expected] of rows) {
      it(name, () => expect(planCheckUpdate(...args)).to.deep.equal(expected));
    }

    it('refuses a check_id outside the group, or of another check when there is no group', () => {
      expect(() =>
        planCheckUpdate(member, ['c1', 'c2'], [{ check_id: 'zz', taginfo: tag('a') }, { taginfo: tag('b') }]),
      )
        .to.throw(PlanError)
        .with.property('problems')
        .deep.equal([{ field: 'grouped_checks[0].check_id', problem: 'is not a check of this group' }]);
      expect(() =>
        planCheckUpdate(single, [], [{ check_id: 'c9', taginfo: tag('a') }, { taginfo: tag('b') }]),
      ).to.throw(PlanError);
    });

    it('refuses repeated tags and repeated check ids', () => {
      expect(() =>
        planCheckUpdate(
          member,
          ['c1', 'c2'],
          [
            { check_id: 'c1', taginfo: tag('a') },
            { check_id: 'c2', taginfo: tag('a') },
          ],
        ),
      ).to.throw(PlanError);
      expect(() =>
        planCheckUpdate(
          member,
          ['c1', 'c2'],
          [
            { check_id: 'c1', taginfo: tag('a') },
            { check_id: 'c1', taginfo: tag('b') },
          ],
        ),
      ).to.throw(PlanError);
    });
  });
});
