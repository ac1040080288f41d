import { expect } from 'chai';
import type { Principal } from '@bulwark/platform';
import { CallerScope } from './caller-scope';
import type { TrackerRecord } from './store/trackers';
import { trackerInScope, trackerProjects } from './tracker-scope';

describe('issues: the projects of a task tracker', () => {
  const mapping = (project_code: string) => ({
    project_code,
    tracker_project: `tp-${project_code}`,
    issue_type: 'Bug',
  });

  it('applies a tracker to the projects it maps, and to every project with a * mapping', () => {
    expect(trackerProjects([mapping('a'), mapping('b')])).to.deep.equal({ every: false, codes: ['a', 'b'], tags: [] });
    expect(trackerProjects([mapping('*'), mapping('a')])).to.deep.equal({ every: true, codes: ['a'], tags: [] });
    expect(trackerProjects([])).to.deep.equal({ every: false, codes: [], tags: [] });
  });

  it('shows a caller limited to some projects only their mappings and the * one', () => {
    const caller = (projects: string[] | null) =>
      new CallerScope({
        userId: 'u',
        username: 'u',
        permissions: {},
        projects,
        tokenKind: 'login',
        tokenId: 't',
      } satisfies Principal);
    const tracker = { projects: [mapping('a'), mapping('b'), mapping('*')] } as TrackerRecord;
    expect(trackerInScope(caller(['a']), tracker).projects.map((p) => p.project_code)).to.deep.equal(['a', '*']);
    expect(trackerInScope(caller(null), tracker)).to.equal(tracker);
  });
});
