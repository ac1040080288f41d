import { escapeMarkdown } from '@bulwark/platform/markdown';

/** Hidden in the summary comment: how a rescan finds the comment to update instead of adding one. */
export const SUMMARY_MARKER = '<!-- bulwark:pull-request-summary -->';
/** Hidden in each review comment: which issue it is about, so a rerun does not post it twice. */
export const reviewMarker = (issueId: string) => `<!-- bulwark:issue:${issueId.replace(/[^0-9a-f-]/gi, '')} -->`;

/** Most issues listed in each table; the rest are counted and left to the console. */
export const MAX_LISTED = 50;

export interface DecoratedIssue {
  id: string;
  severity: string;
  title: string;
  path: string | null;
  line: number | null;
}

export interface PullRequestSummary {
  verdict: 'passed' | 'failed' | 'none';
  failedConditions: string[];
  newIssues: DecoratedIssue[];
  fixedIssues: DecoratedIssue[];
  /** How many there are when the lists hold only the first ones (by severity); the lists' lengths otherwise. */
  newTotal?: number;
  fixedTotal?: number;
  consoleUrl: string;
  /** The link of a file (and line) in the request's diff, as the platform anchors it. */
  diffLink: (path: string, line: number | null) => string;
  /** What the lists compare with: the base branch, and whether it has a scan (no lists when not). */
  base?: { branch: string; scanned: boolean };
}

const location = (s: PullRequestSummary, i: DecoratedIssue) => {
  if (!i.path) return '';
  const text = escapeMarkdown(i.line ? `${i.path}:${i.line}` : i.path);
  return `[${text}](${s.diffLink(i.path, i.line)})`;
};

const table = (s: PullRequestSummary, issues: DecoratedIssue[], total: number) => {
  const rows = issues
    .slice(0, MAX_LISTED)
    .map((i) => `| ${escapeMarkdown(i.severity, 20)} | ${escapeMarkdown(i.title)} | ${location(s, i)} |`);
  const more = total > rows.length ? [``, `and ${total - rows.length} more in the console.`] : [];
  return ['| Severity | Title | Location |', '| --- | --- | --- |', ...rows, ...more];
};

const VERDICT = { passed: '✅ Quality gate passed', failed: '❌ Quality gate failed', none: 'No quality gate' };

/**
 * The one summary comment of a pull request, in Markdown: the verdict with its failed conditions, the
 * new and fixed issues against the base branch's latest scan (or that there is none), and the console
 * link. Every text that came from a scanner or the repository goes through escapeMarkdown.
 */
export function renderSummary(s: PullRequestSummary): string {
  const lines = [SUMMARY_MARKER, `### Bulwark: ${VERDICT[s.verdict]}`, ''];
  for (const c of s.failedConditions) lines.push(`- ${escapeMarkdown(c)}`);
  if (s.failedConditions.length) lines.push('');
  const branch = s.base && escapeMarkdown(s.base.branch, 255);
  if (s.base && !s.base.scanned)
    lines.push(`No scan of ${branch} to compare with: new and fixed issues are listed once ${branch} has one.`, '');
  else {
    if (s.base) lines.push(`Compared with the latest scan of ${branch}.`, '');
    lines.push(...issueLists(s));
  }
  lines.push(`[Open in Bulwark](${encodeURI(s.consoleUrl)})`);
  return lines.join('\n');
}

function issueLists(s: PullRequestSummary): string[] {
  const lines: string[] = [];
  const newTotal = s.newTotal ?? s.newIssues.length;
  const fixedTotal = s.fixedTotal ?? s.fixedIssues.length;
  lines.push(`**${newTotal} new issue(s)** in this pull request`, '');
  if (newTotal) lines.push(...table(s, s.newIssues, newTotal), '');
  lines.push(`**${fixedTotal} fixed issue(s)**`, '');
  if (fixedTotal) lines.push(...table(s, s.fixedIssues, fixedTotal), '');
  return lines;
}

/** A review comment on a changed line: one new issue, with its marker. */
export const renderReviewComment = (i: DecoratedIssue) =>
  `${reviewMarker(i.id)}\n**Bulwark: ${escapeMarkdown(i.severity, 20)}**: ${escapeMarkdown(i.title)}`;
