import { ModuleDefinition, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { reportingV1 } from '@bulwark/proto';
import { readReportingConfig } from './config';
import { migrations } from './migrations';

export const reportingModule: ModuleDefinition = {
  name: 'reporting',
  dependsOn: [],
  async start(ctx) {
    const config = readReportingConfig(ctx.env);
    const host = await ServiceHost.open(ctx, { name: 'reporting', migrations, databaseUrl: config.REPORTING_DATABASE_URL });
    host.grpc.add(reportingV1.ReportingServiceService, 'bulwark.reporting.v1.ReportingService', {});
    return host.serve(routesOf('reporting'), {});
  },
};
