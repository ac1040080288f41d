import { describeSystem } from '@bulwark/testkit';
import { identitySuite } from '../../../services/identity/test/identity.suite';
import { directorySuite } from '../../../services/identity/test/directory.suite';
import { ssoSuite } from '../../../services/identity/test/sso.suite';
import { groupsSuite } from '../../../services/identity/test/groups.suite';
import { escalationSuite } from '../../../services/identity/test/escalation.suite';
import { catalogSuite } from '../../../services/catalog/test/catalog.suite';
import { projectScopeSuite } from '../../../services/catalog/test/project-scope.suite';
import { scanningSuite } from '../../../services/scanning/test/scanning.suite';
import { scannersSuite } from '../../../services/scanning/test/scanners.suite';
import { hostileRepositorySuite } from '../../../services/scanning/test/hostile-repository.suite';
import { issuesSuite } from '../../../services/issues/test/issues.suite';
import { trackersSuite } from '../../../services/issues/test/trackers.suite';
import { triageSuite } from '../../../services/issues/test/triage.suite';
import { intelSuite } from '../../../services/issues/test/intel.suite';
import { slaSuite } from '../../../services/issues/test/sla.suite';
import { dryRunSuite } from '../../../services/issues/test/dry-run.suite';
import { issueListSuite } from '../../../services/issues/test/issue-list.suite';
import { issueSettingsScopeSuite } from '../../../services/issues/test/project-scope.suite';
import { mergeRequestDecorationSuite } from '../../../services/issues/test/merge-request-decoration.suite';
import { giteaDecorationSuite } from '../../../services/issues/test/gitea-decoration.suite';
import { pullRequestDecorationSuite } from '../../../services/issues/test/pull-request-decoration.suite';
import { reportingSuite } from '../../../services/reporting/test/reporting.suite';
import { notificationsSuite } from '../../../services/notifications/test/notifications.suite';
import { errorsLogSuite } from '../../../services/notifications/test/errors-log.suite';
import { licenseSuite } from '../../../services/identity/test/license.suite';
import { directAccessSuite, gatewaySuite } from '../../../gateway/test/gateway.suite';
import { authorizationMatrix } from '../../../gateway/test/authorization-matrix.suite';
import { sessionSuite } from '../../../gateway/test/session.suite';
import { compressionSuite } from '../../../gateway/test/compression.suite';
import { mcpSuite } from '../../../gateway/test/mcp.suite';
import { cliPipelineSuite } from '../../cli/test/pipeline.suite';

// Every HTTP suite, run once per run mode against one started system.
describeSystem({
  'gateway behaviour': gatewaySuite,
  'services behind the gateway': directAccessSuite,
  'browser session and console': sessionSuite,
  'response compression': compressionSuite,
  'MCP server for AI assistants': mcpSuite,
  'identity service': identitySuite,
  'directory login (LDAP)': directorySuite,
  'single sign-on (OIDC)': ssoSuite,
  'user groups': groupsSuite,
  'no escalation of rights': escalationSuite,
  'catalog service': catalogSuite,
  'project scope of sources, tools, notifiers, events and reports': projectScopeSuite,
  'scanning service': scanningSuite,
  'real scanners end to end': scannersSuite,
  'hostile repository scanned by every CLI tool': hostileRepositorySuite,
  'issues service': issuesSuite,
  'issue triage (assignment, analysis, risk acceptance)': triageSuite,
  'exploit intelligence (EPSS and KEV feeds, enrichment)': intelSuite,
  'SLA policies (due dates, states, breaches)': slaSuite,
  'issue list views, export and duplicates in counts': issueListSuite,
  'upload dry runs and the reasons of ingestion changes': dryRunSuite,
  'task trackers (Redmine for real, Jira contract server)': trackersSuite,
  'pull request decoration (Gitea for real)': giteaDecorationSuite,
  'pull request decoration (GitHub contract server)': pullRequestDecorationSuite,
  'merge request decoration (GitLab contract server)': mergeRequestDecorationSuite,
  'project scope of issue settings (rules, gates, policies, trackers)': issueSettingsScopeSuite,
  'reporting service': reportingSuite,
  'notifications service': notificationsSuite,
  'the CLI in CI pipelines': cliPipelineSuite,
  'error log': errorsLogSuite,
  license: licenseSuite,
  'authorization matrix over the route table': authorizationMatrix,
});
