import type { TopicSpec } from '@bulwark/platform';

/**
 * Every Kafka topic, declared once. Topics are created explicitly at start; events are keyed by the
 * id of the aggregate they concern, so events of one aggregate keep their order.
 */
export const TOPICS = {
  identity: 'bulwark.identity.v1',
  catalog: 'bulwark.catalog.v1',
  scans: 'bulwark.scans.v1',
  issues: 'bulwark.issues.v1',
  reports: 'bulwark.reports.v1',
  notifications: 'bulwark.notifications.v1',
} as const;

export const TOPIC_SPECS: TopicSpec[] = Object.values(TOPICS).map((name) => ({ name, partitions: 3 }));

/** Event types on the identity topic. */
export const IDENTITY_EVENTS = {
  userCreated: 'user.created',
  userUpdated: 'user.updated',
  userDeleted: 'user.deleted',
  userRestored: 'user.restored',
  roleCreated: 'role.created',
  roleUpdated: 'role.updated',
  roleDeleted: 'role.deleted',
  tokenCreated: 'token.created',
  tokenRevoked: 'token.revoked',
} as const;
