import { ModuleDefinition, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { issuesV1 } from '@bulwark/proto';
import { readIssuesConfig } from './config';
import { migrations } from './migrations';

export const issuesModule: ModuleDefinition = {
  name: 'issues',
  dependsOn: [],
  async start(ctx) {
    const config = readIssuesConfig(ctx.env);
    const host = await ServiceHost.open(ctx, { name: 'issues', migrations, databaseUrl: config.ISSUES_DATABASE_URL });
    host.grpc.add(issuesV1.IssuesServiceService, 'bulwark.issues.v1.IssuesService', {});
    return host.serve(routesOf('issues'), {});
  },
};
