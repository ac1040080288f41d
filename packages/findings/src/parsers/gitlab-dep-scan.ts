import { Finding } from '../model';
import { obj, str } from '../normalize';
import { JsonFormat, ParseContext } from './common';
import { gitlabCommon, gitlabReportType, gitlabScanner, gitlabVulnerabilities, isEmptyGitlabReport } from './gitlab';

/** GitLab dependency scanning and container scanning reports: both name a package and its version. */
function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const container = gitlabReportType(doc) === 'container_scanning';
  for (const v of gitlabVulnerabilities(doc)) {
    const location = obj(v.location);
    const dependency = obj(location.dependency);
    const name = str(obj(dependency.package).name);
    yield ctx.finding({
      ...gitlabCommon(v, gitlabScanner(doc, v, container ? 'gitlab-container-scanning' : 'gitlab-dependency-scanning')),
      toolCategory: container ? 'container' : 'sca',
      tags: [str(location.operating_system)].filter((t): t is string => !!t),
      // Some analyzers leave the package out; the finding then stays on the manifest alone.
      library: name ? { name, version: str(dependency.version) } : undefined,
      filePath: str(location.file) ?? str(location.image),
    });
  }
}

export const gitlabDependencyScanning: JsonFormat = {
  id: 'gitlab-dependency-scanning',
  title: 'GitLab dependency scanning and container scanning report JSON',
  testedWith: 'GitLab security report schema 2.x–15.x',
  kind: 'json',
  detect: (doc) => ['dependency_scanning', 'container_scanning'].includes(gitlabReportType(doc) ?? ''),
  isEmptyReport: isEmptyGitlabReport,
  parse,
};
