import { ModuleDefinition, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { catalogV1 } from '@bulwark/proto';
import { readCatalogConfig } from './config';
import { migrations } from './migrations';

export const catalogModule: ModuleDefinition = {
  name: 'catalog',
  dependsOn: [],
  async start(ctx) {
    const config = readCatalogConfig(ctx.env);
    const host = await ServiceHost.open(ctx, { name: 'catalog', migrations, databaseUrl: config.CATALOG_DATABASE_URL });
    host.grpc.add(catalogV1.CatalogServiceService, 'bulwark.catalog.v1.CatalogService', {});
    return host.serve(routesOf('catalog'), {});
  },
};
