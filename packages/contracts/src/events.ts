import { ERROR_LEVELS, ERROR_RECORDED, ERRORS_TOPIC, type ErrorRecordedPayload, type TopicSpec } from '@bulwark/platform';
import { z } from './zod';

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
  /** Operational errors of every service, keyed by the service's name; the error log consumes them. */
  errors: ERRORS_TOPIC,
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
  groupCreated: 'group.created',
  groupUpdated: 'group.updated',
  groupDeleted: 'group.deleted',
  /** { license_id, licensee, edition, expires_at, days_left }: the installed license expires soon (sent at each warning threshold). */
  licenseExpiring: 'license.expiring',
  /** { license_id, licensee, edition, expires_at }: the installed license has expired; community limits apply. */
  licenseExpired: 'license.expired',
} as const;

/** Event types on the catalog topic; the key is the project code, or the layer, source or tool id. */
export const CATALOG_EVENTS = {
  projectCreated: 'project.created',
  projectUpdated: 'project.updated',
  projectArchived: 'project.archived',
  projectUnarchived: 'project.unarchived',
  projectDeleted: 'project.deleted',
  projectRestored: 'project.restored',
  layerCreated: 'layer.created',
  layerUpdated: 'layer.updated',
  layerDeleted: 'layer.deleted',
  sourceCreated: 'source.created',
  sourceUpdated: 'source.updated',
  sourceDeleted: 'source.deleted',
  toolCreated: 'tool.created',
  toolUpdated: 'tool.updated',
  toolDeleted: 'tool.deleted',
  /** Asks every holder of the tool's cached workspaces and data to drop them. */
  toolCleanedUp: 'tool.cleaned_up',
} as const;

/**
 * Event types on the scans topic; the key is the check id, so a check's events keep their order.
 * `scan.completed` announces findings that the issues service then reads in chunks over gRPC.
 */
export const SCAN_EVENTS = {
  checkCreated: 'check.created',
  checkUpdated: 'check.updated',
  checkDeleted: 'check.deleted',
  scanQueued: 'scan.queued',
  scanStarted: 'scan.started',
  scanCompleted: 'scan.completed',
  scanFailed: 'scan.failed',
  scanStopped: 'scan.stopped',
} as const;

/**
 * Event types on the issues topic. Issue events are keyed by issue id; a scan's ingestion summary and
 * its quality-gate verdict by scan result id. Ingestion publishes one summary per scan, not one event
 * per issue, so a scan of 100,000 findings is one event.
 */
export const ISSUE_EVENTS = {
  /** { scan_result_id, check_id, layer_id, project_code, created, updated, reopened, fixed } */
  issuesIngested: 'issues.ingested',
  issueUpdated: 'issue.updated',
  issueStatusChanged: 'issue.status_changed',
  issuesDeleted: 'issues.deleted',
  /** { scan_result_id, layer_id, project_code, verdict: { status, locked, conditions } } */
  qualityGateEvaluated: 'quality_gate.evaluated',
} as const;

/** Event types on the reports topic, keyed by report id. */
export const REPORT_EVENTS = {
  /** { id, name, type, author, project_codes } */
  reportReady: 'report.ready',
  /** { id, name, type, author, error } */
  reportFailed: 'report.failed',
} as const;

/** Event types on the errors topic. */
export const ERROR_EVENTS = {
  errorRecorded: ERROR_RECORDED,
} as const;

/**
 * The payload of `error.recorded`, as every service builds it (`ServiceHost.recordError`) and the
 * error log parses it. The platform declares the type (it records 5xx answers and dead-lettered
 * events itself); the check below keeps this schema and that type the same.
 */
export const errorRecordedPayload = z
  .object({
    service: z.string().min(1).max(64),
    code: z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/, 'must be dotted lower-case words, area first (http.internal)').max(100),
    level: z.enum(ERROR_LEVELS),
    message: z.string().min(1),
    message_ru: z.string().min(1),
    subject: z.string().nullable(),
    route: z.string().nullable(),
    request_id: z.string().nullable(),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    occurred_at: z.iso.datetime({ offset: true }),
  })
  .strict();

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const payloadMatches: Same<z.infer<typeof errorRecordedPayload>, ErrorRecordedPayload> = true;
void payloadMatches;
