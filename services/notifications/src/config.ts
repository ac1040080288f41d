import { z } from 'zod';
import { env, loadConfig } from '@bulwark/platform';

export const notificationsConfigSchema = z.object({
  NOTIFICATIONS_DATABASE_URL: env.url(),
  /** How often due webhook deliveries are looked for. */
  NOTIFY_POLL_MS: env.int(500, 50),
  /** Attempts of a delivery before it is given up (1 s doubling to 10 min between them). */
  NOTIFY_MAX_ATTEMPTS: env.int(8, 1),
  /** Deliveries one process takes at a time. */
  NOTIFY_BATCH: env.int(20, 1),
  /** Days the events log keeps an event (one still being delivered stays until it is done). */
  NOTIFY_EVENTS_RETENTION_DAYS: env.int(90, 1),
  /** Days the error log keeps an error. */
  ERRORS_LOG_RETENTION_DAYS: env.int(90, 1),
  /** Hours a replaced signing secret keeps signing beside the new one (0: replaced at once). */
  NOTIFY_SECRET_ROTATION_HOURS: env.int(24, 0),
});

export const readNotificationsConfig = (e: NodeJS.ProcessEnv) => loadConfig(notificationsConfigSchema, e);
