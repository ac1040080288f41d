import {
  enqueueEvents,
  ERROR_LEVELS,
  ERROR_RECORDED,
  ERRORS_TOPIC,
  PoisonEvent,
  type ErrorRecordedPayload,
  type InboxEffect,
  type InboxWrite,
  type EventEnvelope,
  type NewEvent,
  type Queryable,
  type TopicSpec,
  type Trx,
} from '@bulwark/platform';
import { GATE_ACTIONS, GATE_CONDITION_TYPES, GATE_OPERATORS } from './quality-gates';
import { comparisonBody } from './schemas/scanning';
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
  /** An open issue passed its SLA due date: once per issue and breach. */
  issueSlaBreached: 'issue.sla_breached',
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
    code: z
      .string()
      .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/, 'must be dotted lower-case words, area first (http.internal)')
      .max(100),
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

// The payloads of the other events. The webhook document (webhooks.ts) shows the ones a notifier
// receives, so their descriptions are written for receivers. Fields are only added, and a field an
// older producer did not write is optional, so a consumer can still read the events on the bus.

const count = z.number().int().min(0);
/** Every one of a scan's events starts with these: the key is the check id, the scan is the subject. */
const scanRef = { scan_result_id: z.string(), check_id: z.string(), layer_id: z.string(), project_code: z.string() };
const licenseRef = {
  license_id: z.string(),
  licensee: z.string(),
  edition: z.string(),
  expires_at: z.string().openapi({ description: 'ISO 8601 UTC' }),
};
/** An update names the fields the request changed. */
const fields = z.array(z.string());

const project = {
  code: z.string(),
  name: z.string(),
  tags: z.array(z.string()),
  archived: z.boolean(),
  // Absent from events written before projects had one (read as medium).
  criticality: z.enum(['low', 'medium', 'high', 'critical']).optional(),
};
const layer = {
  id: z.string(),
  project_code: z.string(),
  name: z.string(),
  layer_type_id: z.number().int(),
  is_template: z.boolean(),
  template_id: z.string().nullable(),
};
const access = { access_type: z.string(), project_codes: z.array(z.string()) };
const source = { id: z.string(), name: z.string(), source_type_id: z.number().int(), url: z.string(), ...access };
const tool = { id: z.string(), name: z.string(), type_id: z.number().int(), version: z.string(), ...access };

const conditionVerdict = z.object({
  condition_id: z.string(),
  quality_gate_id: z.string(),
  quality_gate_name: z.string(),
  action: z.enum(GATE_ACTIONS),
  condition_type: z.enum(GATE_CONDITION_TYPES),
  condition_value: z.string(),
  operator: z.enum(GATE_OPERATORS),
  value: z.number(),
  measured: z.number(),
  passed: z.boolean(),
});

/** A layer's quality-gate verdict after a scan, as the issues service stores it and publishes it (scanning keeps it on the scan). */
export const gateVerdict = z.object({
  status: z.enum(['passed', 'failed']),
  locked: z.boolean(),
  gates: z
    .array(
      z.object({
        quality_gate_id: z.string(),
        name: z.string(),
        action: z.enum(GATE_ACTIONS),
        status: z.enum(['passed', 'failed']),
      }),
    )
    .optional(),
  conditions: z.array(conditionVerdict),
  scan_result_id: z.string(),
  layer_id: z.string(),
  evaluated_at: z.string().openapi({ description: 'ISO 8601 UTC' }),
});
export type GateVerdict = z.infer<typeof gateVerdict>;

const report = { id: z.string(), name: z.string(), type: z.string(), author: z.string().nullable() };

/**
 * The payload of every event type, by type: the producer builds it with the inferred type
 * (`newEvent`, `writeEvent`) and the consumer reads it through the schema (`onEvents`).
 */
export const EVENT_PAYLOADS = {
  [IDENTITY_EVENTS.userCreated]: z.object({
    id: z.string(),
    username: z.string(),
    roles: z.array(z.string()).optional(),
    directory: z.boolean().optional(),
  }),
  [IDENTITY_EVENTS.userUpdated]: z.object({ id: z.string(), fields, directory: z.boolean().optional() }),
  [IDENTITY_EVENTS.userDeleted]: z.object({ id: z.string(), username: z.string() }),
  [IDENTITY_EVENTS.userRestored]: z.object({ id: z.string(), username: z.string() }),
  [IDENTITY_EVENTS.roleCreated]: z.object({ role_code: z.string() }),
  [IDENTITY_EVENTS.roleUpdated]: z.object({ role_code: z.string() }),
  [IDENTITY_EVENTS.roleDeleted]: z.object({ role_code: z.string(), detached_users: count, detached_groups: count }),
  [IDENTITY_EVENTS.tokenCreated]: z.object({
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    expires_at: z.string(),
  }),
  [IDENTITY_EVENTS.tokenRevoked]: z.object({ id: z.string(), user_id: z.string(), by: z.string() }),
  [IDENTITY_EVENTS.groupCreated]: z.object({ id: z.string(), name: z.string() }),
  [IDENTITY_EVENTS.groupUpdated]: z.object({ id: z.string(), fields }),
  [IDENTITY_EVENTS.groupDeleted]: z.object({ id: z.string(), name: z.string() }),
  [IDENTITY_EVENTS.licenseExpiring]: z.object({ ...licenseRef, days_left: count }),
  [IDENTITY_EVENTS.licenseExpired]: z.object(licenseRef),

  [CATALOG_EVENTS.projectCreated]: z.object(project),
  [CATALOG_EVENTS.projectUpdated]: z.object({ ...project, fields }),
  [CATALOG_EVENTS.projectArchived]: z.object(project),
  [CATALOG_EVENTS.projectUnarchived]: z.object(project),
  [CATALOG_EVENTS.projectDeleted]: z.object(project),
  [CATALOG_EVENTS.projectRestored]: z.object(project),
  [CATALOG_EVENTS.layerCreated]: z.object(layer),
  [CATALOG_EVENTS.layerUpdated]: z.object(layer),
  [CATALOG_EVENTS.layerDeleted]: z.object(layer),
  [CATALOG_EVENTS.sourceCreated]: z.object(source),
  [CATALOG_EVENTS.sourceUpdated]: z.object({ ...source, fields }),
  [CATALOG_EVENTS.sourceDeleted]: z.object(source),
  [CATALOG_EVENTS.toolCreated]: z.object(tool),
  [CATALOG_EVENTS.toolUpdated]: z.object({ ...tool, fields }),
  [CATALOG_EVENTS.toolDeleted]: z.object(tool),
  [CATALOG_EVENTS.toolCleanedUp]: z.object({ id: z.string(), removed: z.object({ files: count, bytes: count }) }),

  [SCAN_EVENTS.checkCreated]: z.object({
    check_id: z.string(),
    layer_id: z.string(),
    group_id: z.string().nullable(),
    from_template_check: z.string().optional(),
  }),
  [SCAN_EVENTS.checkUpdated]: z.object({ check_id: z.string(), comparison: comparisonBody.optional() }),
  [SCAN_EVENTS.checkDeleted]: z.object({ check_id: z.string(), group_id: z.string().nullable() }),
  [SCAN_EVENTS.scanQueued]: z.object({
    ...scanRef,
    requested_by: z.string().optional(),
    reason: z.string().optional(),
  }),
  [SCAN_EVENTS.scanStarted]: z.object({ ...scanRef, attempt: count }),
  [SCAN_EVENTS.scanCompleted]: z.object({
    ...scanRef,
    findings_count: count,
    severity_counts: z.record(z.string(), count).optional().openapi({ description: 'Findings by severity' }),
    tool_id: z.string(),
    tool_name: z.string().optional().openapi({
      description:
        "The tool's name in the catalog when the scan completed (absent in events written before it was added)",
    }),
    uploaded: z.boolean().optional().openapi({ description: 'true when the report was uploaded rather than scanned' }),
    findings_digest: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'A digest of the findings: equal digests, equal findings' }),
    diff: z.object({ base_scan_result_id: z.string(), added: count, vanished: count }).optional().openapi({
      description:
        "What this scan changed against the check's previous scan (the base): how many findings it added and how many of the base's it no longer has, read apart with StreamFindings",
    }),
    pull_request: z
      .object({
        number: z.number().int().positive(),
        head_sha: z.string().nullable(),
        base_branch: z.string().nullable(),
        source_id: z.string(),
      })
      .optional()
      .openapi({
        description:
          "The pull or merge request an upload was of, in the repository of the check's source (source_id): where the verdict is posted",
      }),
  }),
  [SCAN_EVENTS.scanFailed]: z.object({ ...scanRef, error: z.string().optional(), reason: z.string().optional() }),
  [SCAN_EVENTS.scanStopped]: z.object({ ...scanRef, by: z.string().optional(), reason: z.string().optional() }),

  [ISSUE_EVENTS.issuesIngested]: z.object({
    ...scanRef,
    findings: count,
    created: count,
    updated: count,
    reopened: count,
    fixed: count,
  }),
  [ISSUE_EVENTS.issueUpdated]: z.object({
    issue_id: z.string(),
    project_code: z.string(),
    assignee: z.string().nullable(),
    by: z.string(),
  }),
  [ISSUE_EVENTS.issueStatusChanged]: z.object({
    issue_id: z.string(),
    project_code: z.string(),
    from_status_id: z.number().int(),
    to_status_id: z.number().int(),
    by: z.string(),
    comment: z.string().nullable(),
  }),
  [ISSUE_EVENTS.issueSlaBreached]: z.object({
    issue_id: z.string(),
    project_code: z.string(),
    title: z.string(),
    severity: z.string(),
    known_exploited: z.boolean(),
    sla_due_at: z.string(),
  }),
  [ISSUE_EVENTS.issuesDeleted]: z.object({ ids: z.array(z.string()), by: z.string() }),
  [ISSUE_EVENTS.qualityGateEvaluated]: z.object({
    scan_result_id: z.string(),
    layer_id: z.string(),
    project_code: z.string(),
    verdict: gateVerdict,
  }),

  [REPORT_EVENTS.reportReady]: z.object({ ...report, project_codes: z.array(z.string()) }),
  [REPORT_EVENTS.reportFailed]: z.object({ ...report, error: z.string() }),

  [ERROR_EVENTS.errorRecorded]: errorRecordedPayload,
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

const topicOf = (topic: string, types: Record<string, string>) =>
  Object.values(types).map((type) => [type, topic] as const);

/** The topic each event type travels on. */
export const EVENT_TOPICS = Object.fromEntries([
  ...topicOf(TOPICS.identity, IDENTITY_EVENTS),
  ...topicOf(TOPICS.catalog, CATALOG_EVENTS),
  ...topicOf(TOPICS.scans, SCAN_EVENTS),
  ...topicOf(TOPICS.issues, ISSUE_EVENTS),
  ...topicOf(TOPICS.reports, REPORT_EVENTS),
  ...topicOf(TOPICS.errors, ERROR_EVENTS),
]) as Record<EventType, string>;

type ValueOf<T> = T[keyof T];
type AllEventTypes =
  | ValueOf<typeof IDENTITY_EVENTS>
  | ValueOf<typeof CATALOG_EVENTS>
  | ValueOf<typeof SCAN_EVENTS>
  | ValueOf<typeof ISSUE_EVENTS>
  | ValueOf<typeof REPORT_EVENTS>
  | ValueOf<typeof ERROR_EVENTS>;
// A type declared above without a payload schema fails to compile here.
const everyTypeHasPayload: Record<AllEventTypes, z.ZodType> = EVENT_PAYLOADS;
void everyTypeHasPayload;

/** An event for the outbox, built with its type's payload: a payload of the wrong shape does not compile. */
export type TypedEvent = { [T in EventType]: NewEvent<EventPayload<T>> & { type: T } }[EventType];

export function newEvent<T extends EventType>(
  type: T,
  key: string,
  payload: EventPayload<T>,
): NewEvent<EventPayload<T>> & { type: T } {
  return { topic: EVENT_TOPICS[type], type, key, payload };
}

/** Writes events in the caller's transaction (`enqueueEvents`), each on its type's topic. */
export function writeEvents(trx: Queryable, events: TypedEvent[]): Promise<string[]> {
  return enqueueEvents(trx, events);
}

/** Writes one event in the caller's transaction, on its type's topic. */
export function writeEvent<T extends EventType>(
  trx: Queryable,
  type: T,
  key: string,
  payload: EventPayload<T>,
): Promise<string[]> {
  return enqueueEvents(trx, [newEvent(type, key, payload)]);
}

/** An event of one of the types `T` as a consumer receives it: the payload parsed with its type's schema. */
export type TypedEnvelope<T extends EventType> = { [K in T]: EventEnvelope<EventPayload<K>> & { type: K } }[T];

/** A typed consumer effect in two phases (see `InboxEffect`): reads before the transaction, writes in it. */
export interface TypedInboxEffect<T extends EventType, R> {
  read(event: TypedEnvelope<T>): Promise<R>;
  write(event: TypedEnvelope<T>, trx: Trx, read: R): Promise<void>;
  release?(read: R): Promise<void>;
}

/** The event parsed by its type's schema; undefined for a type not in `wanted`. */
function parsedEvent<T extends EventType>(wanted: Set<string>, event: EventEnvelope): TypedEnvelope<T> | undefined {
  if (!wanted.has(event.type)) return undefined;
  const schema: z.ZodType = EVENT_PAYLOADS[event.type as T];
  const parsed = schema.safeParse(event.payload);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'payload', problem: i.message }));
    throw new PoisonEvent(
      `Event ${event.type} (${event.id}) does not match its schema: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`,
      problems,
    );
  }
  return { ...event, payload: parsed.data } as TypedEnvelope<T>;
}

/**
 * A consumer's effect (for `ServiceHost.consume`) that hands `handler` the events of `types`, each
 * with its payload parsed by its schema; other types on the topics are ignored. A payload that does
 * not match its schema never will: it is a poison event, dead-lettered at once with its id and the
 * fields at fault, instead of being retried or reaching the handler half-formed. Given phases, the
 * payload is parsed before the reads, and the writes get what the reads returned.
 */
export function onEvents<T extends EventType>(
  types: readonly T[],
  handler: (event: TypedEnvelope<T>, trx: Trx) => Promise<void>,
): InboxWrite;
export function onEvents<T extends EventType, R>(
  types: readonly T[],
  phases: TypedInboxEffect<T, R>,
): InboxEffect<{ event: TypedEnvelope<T>; read: R } | undefined>;
export function onEvents<T extends EventType, R>(
  types: readonly T[],
  handler: ((event: TypedEnvelope<T>, trx: Trx) => Promise<void>) | TypedInboxEffect<T, R>,
): InboxWrite | InboxEffect<{ event: TypedEnvelope<T>; read: R } | undefined> {
  const wanted = new Set<string>(types);
  if (typeof handler === 'function')
    return async (event, trx) => {
      const typed = parsedEvent<T>(wanted, event);
      if (typed) await handler(typed, trx);
    };
  return {
    read: async (event) => {
      const typed = parsedEvent<T>(wanted, event);
      return typed && { event: typed, read: await handler.read(typed) };
    },
    write: async (_event, trx, got) => {
      if (got) await handler.write(got.event, trx, got.read);
    },
    release: async (got) => {
      if (got) await handler.release?.(got.read);
    },
  };
}
