import { createGrpcClient, ModuleDefinition, PeriodicTask, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { catalogV1, issuesV1, reportingV1 } from '@bulwark/proto';
import { readReportingConfig } from './config';
import { ReportGenerator } from './generator';
import { reportingHandlers } from './http/handlers';
import { migrations } from './migrations';
import { Reports } from './reports';

export const reportingModule: ModuleDefinition = {
  name: 'reporting',
  dependsOn: ['catalog', 'issues'],
  async start(ctx) {
    const config = readReportingConfig(ctx.env);
    const host = await ServiceHost.open(ctx, {
      name: 'reporting',
      migrations,
      databaseUrl: config.REPORTING_DATABASE_URL,
    });
    const issues = createGrpcClient(issuesV1.IssuesServiceService, 'issues', ctx.peer('issues').grpcAddress, host.auth);
    const catalog = createGrpcClient(
      catalogV1.CatalogServiceService,
      'catalog',
      ctx.peer('catalog').grpcAddress,
      host.auth,
    );
    const generator = new ReportGenerator(host, issues.client, host.log, host, {
      leaseSeconds: config.REPORTING_LEASE_SECONDS,
      topIssues: config.REPORTING_TOP_ISSUES,
    });
    const generation = new PeriodicTask(
      'report generation',
      config.REPORTING_POLL_MS,
      () => generator.drain(),
      host.log,
    );
    const reports = new Reports(host.db, issues.client, catalog.client, config.REPORTING_TOP_ISSUES);
    host.grpc.add(reportingV1.ReportingServiceService, 'bulwark.reporting.v1.ReportingService', {});
    const started = await host.serve(routesOf('reporting'), reportingHandlers(reports));
    generation.start();
    return {
      ...started,
      stop: async () => {
        await generation.stop();
        await started.stop();
        issues.close();
        catalog.close();
      },
    };
  },
};
