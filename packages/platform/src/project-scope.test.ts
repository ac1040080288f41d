import { expect } from 'chai';
import type { Principal } from './auth';
import { AppError } from './errors';
import {
  assertMayChangeProjectSet,
  assertRouteScope,
  bulkRefusal,
  mayChangeProjectSet,
  maySeeProjectSet,
  projectSet,
  projectSetAccess,
  projectSetIncludes,
  projectSetRefusal,
  touchesProjectSet,
  visibleProjectSet,
} from './project-scope';

const caller = (projects: string[] | null): Principal => ({
  userId: 'u',
  username: 'u',
  permissions: {},
  projects,
  tokenKind: 'login',
  tokenId: 't',
});

describe('project scope of organisation-wide objects', () => {
  const scoped = caller(['a', 'b']);
  const unscoped = caller(null);

  it('lets a limited caller change only a set of codes within its projects', () => {
    expect(mayChangeProjectSet(scoped, projectSet({ codes: ['a'] }))).to.equal(true);
    expect(mayChangeProjectSet(scoped, projectSet({ codes: ['a', 'b'] }))).to.equal(true);
    expect(mayChangeProjectSet(scoped, projectSet({ codes: ['a', 'c'] }))).to.equal(false);
    expect(mayChangeProjectSet(scoped, projectSet({ every: true }))).to.equal(false);
    expect(mayChangeProjectSet(scoped, projectSet({ tags: ['pci'] }))).to.equal(false);
    for (const set of [projectSet({ every: true }), projectSet({ tags: ['x'] }), projectSet({ codes: ['z'] })])
      expect(mayChangeProjectSet(unscoped, set)).to.equal(true);
  });

  it('refuses with a 403 that names no project outside the caller’s scope', () => {
    const refusal = (() => {
      try {
        assertMayChangeProjectSet(scoped, projectSet({ codes: ['a', 'secret-project'] }), 'security rule r1');
      } catch (err) {
        return err as AppError;
      }
      throw new Error('not refused');
    })();
    expect(refusal.httpStatus).to.equal(403);
    expect(refusal.message).to.contain('security rule r1').and.not.contain('secret-project');
  });

  it('says why a bulk change is refused, and nothing when it is allowed', () => {
    expect(projectSetRefusal(scoped, projectSet({ codes: ['a'] }), 'notifier n')).to.equal(undefined);
    expect(projectSetRefusal(scoped, projectSet({ every: true }), 'notifier n')).to.contain('every project');
    expect(projectSetRefusal(scoped, projectSet({ codes: ['b', 'secret'] }), 'notifier n'))
      .to.contain('outside your scope')
      .and.not.contain('secret');
  });

  it('tells whether a set holds a project', () => {
    expect(projectSetIncludes(projectSet({ every: true }), 'z')).to.equal(true);
    expect(projectSetIncludes(projectSet({ codes: ['a'] }), 'a')).to.equal(true);
    expect(projectSetIncludes(projectSet({ codes: ['a'] }), 'b')).to.equal(false);
    expect(projectSetIncludes(projectSet({ tags: ['pci'] }), 'b', ['pci'])).to.equal(true);
    expect(projectSetIncludes(projectSet({ tags: ['pci'] }), 'b', ['web'])).to.equal(false);
  });

  it('shows a limited caller the objects touching its projects, with only its own codes and tags', () => {
    const set = projectSet({ codes: ['a', 'c'], tags: ['pci', 'internal'] });
    expect(touchesProjectSet(scoped, set)).to.equal(true);
    expect(touchesProjectSet(scoped, projectSet({ codes: ['c'] }))).to.equal(false);
    expect(touchesProjectSet(scoped, projectSet({ tags: ['pci'] }), ['pci'])).to.equal(true);
    expect(touchesProjectSet(scoped, projectSet({ tags: ['pci'] }), ['web'])).to.equal(false);
    expect(touchesProjectSet(scoped, projectSet({ every: true }))).to.equal(true);
    expect(visibleProjectSet(scoped, set, ['pci'])).to.deep.equal({ every: false, codes: ['a'], tags: ['pci'] });
    expect(visibleProjectSet(unscoped, set)).to.equal(set);
  });

  it('shows a limited caller the objects it may change: those of its projects and those that apply to no project', () => {
    const none = projectSet({});
    expect(touchesProjectSet(scoped, none)).to.equal(false);
    expect(maySeeProjectSet(scoped, none)).to.equal(true);
    expect(maySeeProjectSet(scoped, projectSet({ codes: ['c'] }))).to.equal(false);
    expect(maySeeProjectSet(scoped, projectSet({ tags: ['pci'] }), ['pci'])).to.equal(true);
    expect(maySeeProjectSet(scoped, projectSet({ tags: ['pci'] }), ['web'])).to.equal(false);
    expect(maySeeProjectSet(unscoped, projectSet({ codes: ['c'] }))).to.equal(true);
  });

  it('keeps organisation objects’ changes and organisation settings to callers of every project', () => {
    const org = (letter: 'r' | 'w', scope: 'organisation' | 'unscoped' | 'project') =>
      ({ kind: 'permission', key: 'k', letter, scope }) as const;
    expect(() => assertRouteScope(scoped, org('r', 'organisation'))).not.to.throw();
    expect(() => assertRouteScope(scoped, org('w', 'organisation'))).to.throw(/k:w on every project/);
    expect(() => assertRouteScope(scoped, org('r', 'unscoped'))).to.throw(/k:r on every project/);
    expect(() => assertRouteScope(scoped, org('w', 'project'))).not.to.throw();
    expect(() => assertRouteScope(unscoped, org('w', 'unscoped'))).not.to.throw();
  });

  it('answers one id of a bulk operation: not_found unseen, forbidden with why, or go ahead', () => {
    const scoped = caller(['a']);
    expect(bulkRefusal('x', undefined)).to.deep.equal({ id: 'x', status: 'not_found' });
    expect(bulkRefusal('x', projectSetAccess(scoped, projectSet({ codes: ['b'] }), 'rule x'))).to.deep.equal({
      id: 'x',
      status: 'not_found',
    });
    const shared = bulkRefusal('x', projectSetAccess(scoped, projectSet({ codes: ['a', 'b'] }), 'rule x'));
    expect(shared).to.include({ id: 'x', status: 'forbidden' });
    expect(shared && 'message' in shared ? shared.message : '')
      .to.contain('rule x')
      .and.not.contain('b,');
    expect(bulkRefusal('x', projectSetAccess(scoped, projectSet({ codes: ['a'] }), 'rule x'))).to.equal(undefined);
  });
});
