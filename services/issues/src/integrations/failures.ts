import { errorMessage, ErrorRecorder, Logger } from '@bulwark/platform';

export interface IntegrationFailure {
  tracker_id: string;
  tracker_type: string;
  /** What was attempted: create, link, sync, push. */
  operation: string;
  error: unknown;
  ticket_key?: string;
  issue_ids?: string[];
  /** A retried operation that will not be tried again. */
  gave_up?: boolean;
}

/**
 * The one place a task-tracker failure is recorded: a structured log line (`event:
 * integration_failure`) an operator can alert on, and an entry of the error log (`tracker.<operation>_failed`,
 * or `tracker.gave_up` for a push that will not be retried). Every adapter failure passes here.
 */
export function recordIntegrationFailure(log: Logger, errors: ErrorRecorder, f: IntegrationFailure): void {
  const reason = errorMessage(f.error);
  log.warn('task tracker integration failed', {
    event: 'integration_failure',
    integration: 'tracker',
    tracker_id: f.tracker_id,
    tracker_type: f.tracker_type,
    operation: f.operation,
    ...(f.ticket_key ? { ticket_key: f.ticket_key } : {}),
    ...(f.issue_ids ? { issue_ids: f.issue_ids.slice(0, 20) } : {}),
    gave_up: f.gave_up ?? false,
    error: reason,
  });
  const what = f.ticket_key ? ` (ticket ${f.ticket_key})` : '';
  // Written at once and never thrown (see ErrorRecorder): a failing error log must not fail the sync.
  void errors.recordError({
    code: f.gave_up ? 'tracker.gave_up' : `tracker.${f.operation}_failed`,
    level: f.gave_up ? 'error' : 'warning',
    message: `Task tracker ${f.tracker_type} ${f.tracker_id}: ${f.operation}${what} failed${f.gave_up ? ' and will not be retried' : ''}: ${reason}`,
    message_ru: `Трекер задач ${f.tracker_type} ${f.tracker_id}: операция ${f.operation}${f.ticket_key ? ` (задача ${f.ticket_key})` : ''} не выполнена${f.gave_up ? ', повторов больше не будет' : ''}: ${reason}`,
    subject: f.tracker_id,
    details: {
      tracker_type: f.tracker_type,
      operation: f.operation,
      ticket_key: f.ticket_key ?? null,
      issues: f.issue_ids?.length ?? 0,
    },
  });
}
