import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const notificationsConfigSchema = z.object({
  NOTIFICATIONS_DATABASE_URL: env.url(),
});

export const readNotificationsConfig = (e: NodeJS.ProcessEnv) => loadConfig(notificationsConfigSchema, e);
