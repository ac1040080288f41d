import { expect } from 'chai';
import { trackerProjects } from './scope';

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
});
