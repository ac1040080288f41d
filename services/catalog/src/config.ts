import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const catalogConfigSchema = z.object({
  CATALOG_DATABASE_URL: env.url(),
});

export const readCatalogConfig = (e: NodeJS.ProcessEnv) => loadConfig(catalogConfigSchema, e);
