import { ModuleDefinition, openSecretBox, PeriodicTask, readOutboundPolicy, ServiceHost } from '@bulwark/platform';
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

export const notificationsModule: ModuleDefinition = {
  name: 'notifications',
  dependsOn: [],
  async start(ctx) {
    const config = readNotificationsConfig(ctx.env);
    const host = await ServiceHost.open(ctx, {
      name: 'notifications',
      migrations,
      databaseUrl: config.NOTIFICATIONS_DATABASE_URL,
    });
    const secrets = openSecretBox(ctx, 'notifications');
    const webhooks = new WebhookClient(readOutboundPolicy(ctx.env));
    const worker = new DeliveryWorker(host, ctx.cache, secrets, webhooks, host.log, host, {
      batch: config.NOTIFY_BATCH,
      maxAttempts: config.NOTIFY_MAX_ATTEMPTS,
    });
    const delivery = new PeriodicTask('webhook delivery', config.NOTIFY_POLL_MS, () => worker.drain(), host.log);
    const retention = new PeriodicTask(
      'events retention',
      3_600_000,
      () => eventStore.purge(host.db, config.NOTIFY_EVENTS_RETENTION_DAYS),
      host.log,
    );
    const errorsRetention = new PeriodicTask(
      'error log retention',
      3_600_000,
      () => errorStore.purge(host.db, config.ERRORS_LOG_RETENTION_DAYS),
      host.log,
    );
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
        notifiers: new Notifiers(host.db, secrets, webhooks, config.NOTIFY_SECRET_ROTATION_HOURS),
        events: new SecurityEvents(host.db),
        errors: new ErrorLog(host.db),
      }),
    );
    delivery.start();
    retention.start();
    errorsRetention.start();
    return {
      ...started,
      stop: async () => {
        await delivery.stop();
        await retention.stop();
        await errorsRetention.stop();
        await started.stop();
        await webhooks.close();
      },
    };
  },
};
