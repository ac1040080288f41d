import { defineModule, openSecretBox, readServiceConfig, ServiceHost } from '@bulwark/platform';
import { NOTIFIABLE_EVENTS, onEvents, routesOf, TOPICS } from '@bulwark/contracts';
import { notificationsV1 } from '@bulwark/proto';
import { readNotificationsConfig } from './config';
import { ErrorLog } from './error-log';
import { notificationsHandlers } from './http/handlers';
import { SecurityEvents } from './security-events';
import { migrations } from './migrations';
import { Notifiers } from './notifiers';
import { DeliveryWorker } from './deliveries';
import { errorLogConsumer } from './events/error-log';
import { recordSecurityEvent } from './events/security-events';
import { errorStore } from './store/errors';
import { eventStore } from './store/events';
import { WebhookClient } from './webhook';

export const notificationsModule = defineModule({
  name: 'notifications',
  dependsOn: [],
  readConfig: (e, mode) => readServiceConfig(e, mode, 'notifications', readNotificationsConfig),
  async start(ctx, { config, outbound, host: hostConfig, masterKeys }) {
    const host = await ServiceHost.open(ctx, hostConfig, migrations);
    const secrets = openSecretBox(masterKeys, ctx.dataDir);
    const webhooks = new WebhookClient(outbound);
    ctx.onStop(() => webhooks.close());
    const worker = new DeliveryWorker({
      data: host,
      cache: ctx.cache,
      secrets,
      webhooks,
      log: host.log,
      errors: host,
      opts: {
        batch: config.NOTIFY_BATCH,
        maxAttempts: config.NOTIFY_MAX_ATTEMPTS,
      },
    });
    host.grpc.add(notificationsV1.NotificationsServiceService, 'bulwark.notifications.v1.NotificationsService', {});
    await host.consume(
      'security-events',
      [TOPICS.scans, TOPICS.issues, TOPICS.reports, TOPICS.identity],
      onEvents(NOTIFIABLE_EVENTS, recordSecurityEvent),
    );
    await host.consume('errors-log', [TOPICS.errors], errorLogConsumer(host.log));
    const started = await host.serve(
      routesOf('notifications'),
      notificationsHandlers({
        notifiers: new Notifiers({
          db: host.db,
          secrets,
          webhooks,
          secretRotationHours: config.NOTIFY_SECRET_ROTATION_HOURS,
        }),
        events: new SecurityEvents(host.db),
        errors: new ErrorLog(host.db),
      }),
    );
    ctx.every('webhook delivery', config.NOTIFY_POLL_MS, () => worker.drain());
    ctx.every('events retention', 3_600_000, () => eventStore.purge(host.db, config.NOTIFY_EVENTS_RETENTION_DAYS));
    ctx.every('error log retention', 3_600_000, () => errorStore.purge(host.db, config.ERRORS_LOG_RETENTION_DAYS));
    return started;
  },
});
