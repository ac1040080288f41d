import { ModuleDefinition, ServiceHost } from '@bulwark/platform';
import { routesOf } from '@bulwark/contracts';
import { notificationsV1 } from '@bulwark/proto';
import { readNotificationsConfig } from './config';
import { migrations } from './migrations';

export const notificationsModule: ModuleDefinition = {
  name: 'notifications',
  dependsOn: [],
  async start(ctx) {
    const config = readNotificationsConfig(ctx.env);
    const host = await ServiceHost.open(ctx, { name: 'notifications', migrations, databaseUrl: config.NOTIFICATIONS_DATABASE_URL });
    host.grpc.add(notificationsV1.NotificationsServiceService, 'bulwark.notifications.v1.NotificationsService', {});
    return host.serve(routesOf('notifications'), {});
  },
};
