import {
  defineModule,
  EgressProxy,
  identityLicenseGate,
  openSecretBox,
  readServiceConfig,
  ServiceHost,
} from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { catalogV1 } from '@bulwark/proto';
import { scanningChecksLookup } from './checks-lookup';
import { readCatalogConfig } from './config';
import { catalogGrpc } from './grpc/catalog-grpc';
import { catalogHandlers } from './http/handlers';
import { migrations } from './migrations';
import { CustomFields } from './custom-fields';
import { Layers } from './layers';
import { Projects } from './projects';
import { ResourceAccess } from './resource-access';
import { resealStaleSecrets } from './sealed-secrets';
import { SourceDecorations } from './source-decorations';
import { Sources } from './sources';
import { Tools } from './tools';

export const catalogModule = defineModule({
  name: 'catalog',
  dependsOn: [],
  readConfig: (e, mode) => readServiceConfig(e, mode, 'catalog', readCatalogConfig),
  async start(ctx, { config, outbound, host: hostConfig, masterKeys }) {
    const secrets = openSecretBox(masterKeys, ctx.dataDir);
    const host = await ServiceHost.open(ctx, hostConfig, migrations);
    const checks = scanningChecksLookup(ctx, host.auth);
    const license = identityLicenseGate(ctx, host.auth);
    const fields = new CustomFields(host);
    const projects = new Projects({ data: host, fields, license, log: host.log });
    const layers = new Layers(host, projects, checks);
    const egress = await EgressProxy.start(outbound);
    ctx.onStop(() => egress.close());
    const access = new ResourceAccess(host, projects, checks);
    const sources = new Sources({ data: host, access, secrets, egress, config, log: host.log });
    const decorations = new SourceDecorations({ data: host, access, secrets, policy: outbound, log: host.log });
    const tools = new Tools({ data: host, access, secrets, log: host.log, dataDir: ctx.dataDir });
    const resealed = await resealStaleSecrets(host, secrets);
    if (resealed > 0)
      host.log.info('sealed secrets again under the current master key', { count: resealed, keyId: secrets.keyId });
    host.grpc.add(
      catalogV1.CatalogServiceService,
      'bulwark.catalog.v1.CatalogService',
      catalogGrpc(projects, layers, sources, decorations, tools, access),
    );
    return host.serve(
      routesOf('catalog'),
      catalogHandlers({ fields, projects, layers, sources, decorations, tools, access }),
    );
  },
});
