import {
  defineModule,
  lazyPeerClient,
  loadOrCreateSecret,
  openSecretBox,
  peerClient,
  readServiceConfig,
  requireSetting,
  ServiceHost,
} from '@bulwark/platform';
import { routesOf, TOPICS } from '@bulwark/contracts';
import { catalogV1, identityV1, scanningV1 } from '@bulwark/proto';
import { ApiTokens } from './api-tokens';
import { readIdentityConfig } from './config';
import { DirectoryLogins } from './directory';
import { LdapDirectory } from './domain/ldap';
import { OidcClient } from './domain/oidc';
import { copyProjectTags, keepProjectTags } from './events/project-tags';
import { UserGroups } from './groups';
import { SingleSignOn } from './sso';
import { Users } from './users';
import { SessionTokens } from './domain/sessions';
import { identityGrpc } from './grpc/identity-grpc';
import { Assignees } from './assignees';
import { identityHandlers } from './http/handlers';
import { Licensing, readPublicKey, UsageCounts, VENDOR_PUBLIC_KEY } from './license';
import { Logins } from './logins';
import { RightsChanges } from './rights-changes';
import { Roles } from './roles';
import { migrations } from './migrations';

export const identityModule = defineModule({
  name: 'identity',
  // The catalog's project tags decide which projects a user group covers (see events/project-tags.ts).
  dependsOn: ['catalog'],
  readConfig: (e, mode) =>
    readServiceConfig(e, mode, 'identity', readIdentityConfig, {
      // Replicas must share the signing secret; only the single-process mode may generate its own.
      sharedJwtSecret: (env: NodeJS.ProcessEnv) =>
        mode.singleProcess ||
        requireSetting(env.IDENTITY_JWT_SECRET, 'IDENTITY_JWT_SECRET', 'when identity runs as its own process'),
    }),
  async start(ctx, { config, outbound, host: hostConfig, masterKeys }) {
    const host = await ServiceHost.open(ctx, hostConfig, migrations);
    const jwtSecret = config.IDENTITY_JWT_SECRET ?? loadOrCreateSecret(ctx.dataDir, 'identity-jwt');
    const secrets = openSecretBox(masterKeys, ctx.dataDir);
    const directory = new DirectoryLogins({
      data: host,
      secrets,
      ldap: new LdapDirectory(outbound),
      config,
      log: host.log,
      errors: host,
    });
    const sso = new SingleSignOn({ data: host, secrets, oidc: new OidcClient(outbound), config, log: host.log });
    const changes = new RightsChanges(host, ctx.cache);
    const logins = new Logins({
      db: host.db,
      changes,
      cache: ctx.cache,
      config,
      sessions: new SessionTokens(jwtSecret, config.LOGIN_TOKEN_TTL_HOURS),
      log: host.log,
      directory,
    });
    const users = new Users({ db: host.db, changes, config, log: host.log, directory });
    const groups = new UserGroups(host.db, changes, directory);
    await users.bootstrap();
    await host.consume('project-tags', [TOPICS.catalog], keepProjectTags(ctx.cache, host.log));
    const catalog = peerClient(ctx, catalogV1.CatalogServiceService, 'catalog', host.auth);
    // Scanning may start after identity (it asks identity for the limits): its client is made at first use.
    const scanning = lazyPeerClient(ctx, scanningV1.ScanningServiceService, 'scanning', host.auth);
    const counts: UsageCounts = {
      projects: async () => (await catalog.countProjects({})).count,
      scanningProcesses: async () => (await scanning().countScansInFlight({})).count,
    };
    const licensing = new Licensing({
      data: host,
      publicKey: readPublicKey(config.LICENSE_PUBLIC_KEY ?? VENDOR_PUBLIC_KEY),
      counts,
      noticeDays: config.LICENSE_EXPIRY_NOTICE_DAYS,
      log: host.log,
    });
    host.grpc.add(
      identityV1.IdentityServiceService,
      'bulwark.identity.v1.IdentityService',
      identityGrpc(logins, licensing, new Assignees(host.db)),
    );
    const started = await host.serve(
      routesOf('identity'),
      identityHandlers({
        logins,
        tokens: new ApiTokens(host.db, changes),
        roles: new Roles(host.db, changes),
        users,
        groups,
        directory,
        sso,
        licensing,
      }),
    );

    // Projects made before identity listened to the catalog's events: copied once, retried until the catalog answers.
    const copy = copyProjectTags((req) => catalog.listProjectTags(req), host, ctx.cache, host.log);
    let copied = false;
    ctx.every('license expiry check', config.LICENSE_CHECK_INTERVAL_MS, () => licensing.checkExpiry());
    ctx.every('copying project tags from the catalog', 2000, async () => {
      if (!copied) copied = await copy();
    });
    return started;
  },
});
