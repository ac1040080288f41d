import { createLogger, defineModule, listen, peerClient, SERVICE_NAMES } from '@bulwark/platform';
import { BULWARK_VERSION, ROUTES } from '@bulwark/contracts';
import { identityV1 } from '@bulwark/proto';
import { Authenticator } from './auth/authenticator';
import { readGatewayConfig } from './config';
import { createGatewayApp } from './http/app';
import { consoleBuilt, findConsoleDir } from './http/console';

export const gatewayModule = defineModule({
  name: 'gateway',
  dependsOn: [...SERVICE_NAMES],
  readConfig: readGatewayConfig,
  async start(ctx, config) {
    const log = createLogger('gateway');
    const internalAuth = ctx.internalAuth('gateway');
    const identity = peerClient(ctx, identityV1.IdentityServiceService, 'identity', internalAuth);
    const consoleDir = findConsoleDir(config.CONSOLE_DIR);
    if (!consoleBuilt(consoleDir)) log.warn('console not built: / answers 404', { consoleDir });
    const upstreams = Object.fromEntries(SERVICE_NAMES.map((s) => [s, ctx.peer(s).httpUrl]));
    const app = createGatewayApp({
      config,
      routes: ROUTES,
      upstreams,
      authenticator: new Authenticator(identity, ctx.cache, config.AUTH_CACHE_SECONDS),
      internalAuth,
      perIp: ctx.cache.rateLimiter({
        keyPrefix: 'rl-ip',
        points: config.RATE_LIMIT_PER_IP_PER_MINUTE,
        windowSeconds: 60,
      }),
      perToken: ctx.cache.rateLimiter({
        keyPrefix: 'rl-token',
        points: config.RATE_LIMIT_PER_TOKEN_PER_MINUTE,
        windowSeconds: 60,
      }),
      readiness: async () => {
        await ctx.cache.ping();
        const checks: Record<string, string> = { cache: ctx.cache.kind };
        await Promise.all(
          SERVICE_NAMES.map(async (s) => {
            const res = await fetch(`${upstreams[s]}/readyz`, { signal: AbortSignal.timeout(2000) });
            if (!res.ok) throw new Error(`${s} is not ready`);
            checks[s] = 'ready';
          }),
        );
        return checks;
      },
      version: BULWARK_VERSION,
      log,
      exposeMetrics: ctx.metricsOnHttpPorts,
      consoleDir: consoleBuilt(consoleDir) ? consoleDir : undefined,
    });
    const server = await listen(app, config.GATEWAY_HOST, config.PORT);
    ctx.onStop(() => server.close());
    log.info('gateway listening', {
      url: server.url,
      api: `${server.url}/api/v1`,
      swagger: `${server.url}/api/v1/swagger/index.html`,
      console: `${server.url}/`,
    });
    return { httpUrl: server.url };
  },
});
