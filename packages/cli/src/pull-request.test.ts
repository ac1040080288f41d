import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { CliError } from './errors';
import { pullRequestOfRun } from './pull-request';

const head = 'b'.repeat(40);
const merge = 'c'.repeat(40);

describe('cli: the pull request of a CI run', () => {
  it('reads GitHub Actions’ pull_request event: the head commit, not the merge commit', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'bulwark-cli-')), 'event.json');
    writeFileSync(file, JSON.stringify({ pull_request: { number: 42, head: { sha: head }, base: { ref: 'main' } } }));
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_PATH: file,
      GITHUB_REF: 'refs/pull/42/merge',
      GITHUB_SHA: merge,
    };
    expect(pullRequestOfRun(undefined, env)).to.deep.equal({ number: 42, head_sha: head, base_branch: 'main' });
  });

  it('falls back to GitHub’s refs/pull/N/merge and variables without an event file', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/pull/7/merge', GITHUB_SHA: merge, GITHUB_BASE_REF: 'dev' };
    expect(pullRequestOfRun(undefined, env)).to.deep.equal({ number: 7, head_sha: merge, base_branch: 'dev' });
  });

  it('reads GitLab CI’s merge request pipeline', () => {
    const env = {
      GITLAB_CI: 'true',
      CI_MERGE_REQUEST_IID: '15',
      CI_COMMIT_SHA: head.toUpperCase(),
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    };
    expect(pullRequestOfRun(undefined, env)).to.deep.equal({ number: 15, head_sha: head, base_branch: 'main' });
  });

  it('takes --pull-request over the variables, and none on a branch build', () => {
    expect(pullRequestOfRun('9', { GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/pull/7/merge' })?.number).to.equal(9);
    expect(pullRequestOfRun(undefined, { GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/heads/main' })).to.equal(undefined);
    expect(pullRequestOfRun(undefined, { GITLAB_CI: 'true', CI_COMMIT_SHA: head })).to.equal(undefined);
  });

  it('refuses a --pull-request that is not a number, and ignores a malformed sha', () => {
    for (const bad of ['0', '-1', '7a', '', '1e3']) expect(() => pullRequestOfRun(bad, {})).to.throw(CliError);
    expect(pullRequestOfRun('3', { GITHUB_SHA: 'not-a-sha' })?.head_sha).to.equal(null);
  });
});
