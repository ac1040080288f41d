import { loadOrCreateSecret, ModuleDefinition, openSecretBox, readOutboundPolicy, requireSetting, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { identityV1 } from '@bulwark/proto';
import { Accounts } from './accounts';
import { readIdentityConfig } from './config';
import { DirectoryLogins } from './directory';
import { LdapDirectory } from './domain/ldap';
import { OidcClient } from './domain/oidc';
import { SingleSignOn } from './sso';
import { SessionTokens } from './domain/sessions';
import { identityGrpc } from './grpc/identity-grpc';
import { identityHandlers } from './http/handlers';
import { migrations } from './migrations';

export const identityModule: ModuleDefinition = {
  name: 'identity',
  dependsOn: [],
  async start(ctx) {
    const config = readIdentityConfig(ctx.env);
    const host = await ServiceHost.open(ctx, { name: 'identity', migrations, databaseUrl: config.IDENTITY_DATABASE_URL });
    // Replicas must share the signing secret; only the single-process mode may generate its own.
    const jwtSecret = ctx.singleProcess
      ? config.IDENTITY_JWT_SECRET ?? loadOrCreateSecret(ctx.dataDir, 'identity-jwt')
      : requireSetting(config.IDENTITY_JWT_SECRET, 'IDENTITY_JWT_SECRET', 'when identity runs as its own process');
    const secrets = openSecretBox(ctx, 'identity');
    const outbound = readOutboundPolicy(ctx.env);
    const directory = new DirectoryLogins(host, secrets, new LdapDirectory(outbound), config, host.log);
    const sso = new SingleSignOn(host, secrets, new OidcClient(outbound), config, host.log);
    const accounts = new Accounts(host, ctx.cache, config, new SessionTokens(jwtSecret, config.LOGIN_TOKEN_TTL_HOURS), host.log, directory);
    await accounts.bootstrap();
    host.grpc.add(identityV1.IdentityServiceService, 'bulwark.identity.v1.IdentityService', identityGrpc(accounts));
    return host.serve(routesOf('identity'), identityHandlers(accounts, directory, sso));
  },
};
