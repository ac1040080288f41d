import { ModuleDefinition, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { scanningV1 } from '@bulwark/proto';
import { readScanningConfig } from './config';
import { migrations } from './migrations';

export const scanningModule: ModuleDefinition = {
  name: 'scanning',
  dependsOn: [],
  async start(ctx) {
    const config = readScanningConfig(ctx.env);
    const host = await ServiceHost.open(ctx, { name: 'scanning', migrations, databaseUrl: config.SCANNING_DATABASE_URL });
    host.grpc.add(scanningV1.ScanningServiceService, 'bulwark.scanning.v1.ScanningService', {});
    return host.serve(routesOf('scanning'), {});
  },
};
