import { z } from 'zod';
import { bodyLimitSetting, env, loadConfig } from '@bulwark/platform';

export const gatewayConfigSchema = z.object({
  PORT: env.port(8080),
  /** 0.0.0.0 in a container; loopback by default so a first start exposes nothing. */
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  /** Express "trust proxy": set when a load balancer in front sets X-Forwarded-For. */
  GATEWAY_TRUST_PROXY: z.string().optional(),
  BODY_LIMIT_BYTES: bodyLimitSetting(),
  RATE_LIMIT_PER_IP_PER_MINUTE: env.int(1200, 1),
  RATE_LIMIT_PER_TOKEN_PER_MINUTE: env.int(1200, 1),
  /** How long a token's verified rights may be reused; any identity change ends it sooner. */
  AUTH_CACHE_SECONDS: env.int(30, 0),
  UPSTREAM_TIMEOUT_MS: env.int(120000, 1000),
  /** The built console (its index.html and assets/); by default the @bulwark/console package's dist. */
  CONSOLE_DIR: z.string().optional(),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const readGatewayConfig = (e: NodeJS.ProcessEnv) => loadConfig(gatewayConfigSchema, e);
