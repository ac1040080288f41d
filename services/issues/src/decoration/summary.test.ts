import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { MAX_LISTED, renderReviewComment, renderSummary, reviewMarker, SUMMARY_MARKER } from './summary';

const issue = (n: number, path: string | null = 'src/app.ts') => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  severity: 'high',
  title: `Issue ${n}`,
  path,
  line: path ? n : null,
});
const base = {
  verdict: 'failed' as const,
  failedConditions: ['critical issues: 2 > 0'],
  newIssues: [issue(3)],
  fixedIssues: [issue(4, null)],
  consoleUrl: 'https://bulwark.example/scans/1',
  diffLink: (path: string, line: number | null) =>
    `https://github.example/acme/shop/pull/7/files#diff-${createHash('sha256').update(path).digest('hex')}R${line}`,
};

describe('issues decoration: the pull request summary', () => {
  it('starts with the marker and gives the verdict with its failed conditions', () => {
    const body = renderSummary(base);
    expect(body.startsWith(SUMMARY_MARKER)).to.equal(true);
    expect(body).to.contain('❌ Quality gate failed');
    expect(body).to.contain('- critical issues: 2 \\> 0');
  });

  it('links a new issue’s file:line to the line in the pull request’s diff', () => {
    const anchor = createHash('sha256').update('src/app.ts').digest('hex');
    expect(renderSummary(base)).to.contain(
      `| high | Issue 3 | [src/app.ts:3](https://github.example/acme/shop/pull/7/files#diff-${anchor}R3) |`,
    );
  });

  it('lists the fixed issues, without a link when there is no file', () => {
    expect(renderSummary(base)).to.contain('**1 fixed issue(s)**');
    expect(renderSummary(base)).to.contain('| high | Issue 4 |  |');
  });

  it('lists at most MAX_LISTED issues and counts the rest', () => {
    const many = Array.from({ length: MAX_LISTED + 5 }, (_, i) => issue(i + 1));
    const body = renderSummary({ ...base, newIssues: many });
    expect(body.match(/^\| high \|/gm)).to.have.length(MAX_LISTED + 1);
    expect(body).to.contain('and 5 more in the console.');
  });

  it('ends with the console link', () => {
    expect(renderSummary(base).endsWith('[Open in Bulwark](https://bulwark.example/scans/1)')).to.equal(true);
  });

  it('marks a review comment with its issue id, and nothing else can enter the marker', () => {
    expect(renderReviewComment(issue(3))).to.contain(reviewMarker(issue(3).id));
    expect(reviewMarker('x --> <img src=x>')).to.equal('<!-- bulwark:issue:--c -->');
  });

  it('says there is no scan of the base branch to compare with instead of listing, the branch name escaped', () => {
    const body = renderSummary({ ...base, base: { branch: 'main [x](https://evil.example)', scanned: false } });
    expect(body).to.contain('No scan of main \\[x\\]');
    expect(body).not.to.contain('[x](https://evil');
    expect(body).not.to.contain('new issue(s)');
    expect(body.endsWith('[Open in Bulwark](https://bulwark.example/scans/1)')).to.equal(true);
  });

  it('names the base branch the lists are compared with', () => {
    const body = renderSummary({ ...base, base: { branch: 'main', scanned: true } });
    expect(body).to.contain('Compared with the latest scan of main.');
    expect(body).to.contain('**1 new issue(s)**');
  });
});
