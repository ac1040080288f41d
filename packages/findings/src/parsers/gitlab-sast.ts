import { Finding } from '../model';
import { line, obj, str } from '../normalize';
import { JsonFormat, ParseContext } from './common';
import { gitlabCommon, gitlabReportType, gitlabScanner, gitlabVulnerabilities, isEmptyGitlabReport } from './gitlab';

/** GitLab SAST and secret detection reports: both locate a finding in a file. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const secrets = gitlabReportType(doc) === 'secret_detection';
  for (const v of gitlabVulnerabilities(doc)) {
    const location = obj(v.location);
    const commit = obj(location.commit);
    yield ctx.finding({
      ...gitlabCommon(v, gitlabScanner(doc, v, secrets ? 'gitlab-secret-detection' : 'gitlab-sast')),
      toolCategory: secrets ? 'secrets' : 'sast',
      tags: [str(location.class), str(location.method)].filter((t): t is string => !!t),
      filePath: str(location.file),
      startLine: line(location.start_line),
      endLine: line(location.end_line) ?? line(location.start_line),
      snippet: str(v.raw_source_code_extract),
      detectedAt: str(commit.date),
    });
  }
}

export const gitlabSast: JsonFormat = {
  id: 'gitlab-sast',
  title: 'GitLab SAST and secret detection report JSON (gl-sast-report.json)',
  testedWith: 'GitLab security report schema 2.x–15.x',
  kind: 'json',
  detect: (doc) => ['sast', 'secret_detection'].includes(gitlabReportType(doc) ?? ''),
  isEmptyReport: isEmptyGitlabReport,
  parse,
};
