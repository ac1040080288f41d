import { defineModule, peerClient, readConfigs, readServiceHostConfig, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { catalogV1, issuesV1, reportingV1 } from '@bulwark/proto';
import { readReportingConfig } from './config';
import { ReportGenerator } from './generator';
import { reportingHandlers } from './http/handlers';
import { migrations } from './migrations';
import { Reports } from './reports';

export const reportingModule = defineModule({
  name: 'reporting',
  dependsOn: ['catalog', 'issues'],
  readConfig: (e) =>
    readConfigs(e, { config: readReportingConfig, host: (env) => readServiceHostConfig(env, 'reporting') }),
  async start(ctx, { config, host: hostConfig }) {
    const host = await ServiceHost.open(ctx, hostConfig, migrations);
    const issues = peerClient(ctx, issuesV1.IssuesServiceService, 'issues', host.auth);
    const catalog = peerClient(ctx, catalogV1.CatalogServiceService, 'catalog', host.auth);
    const generator = new ReportGenerator({
      data: host,
      issues,
      log: host.log,
      errors: host,
      opts: {
        leaseSeconds: config.REPORTING_LEASE_SECONDS,
        topIssues: config.REPORTING_TOP_ISSUES,
      },
    });
    const reports = new Reports({
      db: host.db,
      issues,
      catalog,
      topIssues: config.REPORTING_TOP_ISSUES,
    });
    host.grpc.add(reportingV1.ReportingServiceService, 'bulwark.reporting.v1.ReportingService', {});
    const started = await host.serve(routesOf('reporting'), reportingHandlers(reports));
    ctx.every('report generation', config.REPORTING_POLL_MS, () => generator.drain());
    return started;
  },
});
