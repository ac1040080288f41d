import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const catalogConfigSchema = z.object({
  CATALOG_DATABASE_URL: env.url(),
  /** Hard time limit of one source connection test (git ls-remote). */
  CATALOG_GIT_TEST_TIMEOUT_SECONDS: env.int(15, 1),
});

export type CatalogConfig = z.infer<typeof catalogConfigSchema>;

export const readCatalogConfig = (e: NodeJS.ProcessEnv) => loadConfig(catalogConfigSchema, e);
