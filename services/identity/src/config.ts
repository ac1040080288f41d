import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';
import { PASSWORD_LEAST_LENGTH } from '@bulwark/contracts';

export const identityConfigSchema = z.object({
  IDENTITY_DATABASE_URL: env.url(),
  /** Signs login JWTs. Generated into the data directory in the single-process mode. */
  IDENTITY_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOGIN_TOKEN_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(9),
  PASSWORD_MIN_LENGTH: env.int(12, PASSWORD_LEAST_LENGTH),
  /** Failed logins allowed per username, and per client IP, within the window. */
  LOGIN_MAX_FAILURES_PER_USER: env.int(5, 1),
  LOGIN_MAX_FAILURES_PER_IP: env.int(30, 1),
  LOGIN_FAILURE_WINDOW_SECONDS: env.int(900, 1),
  /** Password of the first `admin` user; generated and logged once when absent. */
  BULWARK_ADMIN_PASSWORD: z.string().optional(),
  /** Seed the directory settings until they are saved through PUT /api/v1/ldap/settings. LDAP_URL may list several, comma-separated. */
  LDAP_URL: z.string().optional(),
  LDAP_BIND_DN: z.string().optional(),
  LDAP_BIND_PASSWORD: z.string().optional(),
  LDAP_USER_SEARCH_BASE: z.string().optional(),
  LDAP_USER_FILTER: z.string().optional(),
  LDAP_GROUP_SEARCH_BASE: z.string().optional(),
  /** Seed the single sign-on settings until they are saved through PUT /api/v1/sso/settings. */
  SSO_ISSUER_URL: z.string().optional(),
  SSO_CLIENT_ID: z.string().optional(),
  SSO_CLIENT_SECRET: z.string().optional(),
  SSO_REDIRECT_URI: z.string().optional(),
  /** Replaces the built-in vendor key that licenses must be signed with: PEM, or base64 of the DER (SPKI). For tests and a vendor's own key. */
  LICENSE_PUBLIC_KEY: z.string().optional(),
  /** How often the license's expiry is checked for notices due. */
  LICENSE_CHECK_INTERVAL_MS: env.int(3_600_000, 100),
  /** Days before expiry at which a license.expiring security event is sent, comma-separated. */
  LICENSE_EXPIRY_NOTICE_DAYS: z
    .string()
    .regex(/^\s*\d{1,4}(\s*,\s*\d{1,4})*\s*$/, 'must be whole numbers of days, comma-separated')
    .default('30,14,7,1')
    .transform((v) => v.split(',').map((d) => Number(d.trim()))),
});

export type IdentityConfig = z.infer<typeof identityConfigSchema>;

export const readIdentityConfig = (e: NodeJS.ProcessEnv) => loadConfig(identityConfigSchema, e);
