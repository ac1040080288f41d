import { errorMessage, Logger } from '@bulwark/platform';

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
 * integration_failure`) an operator can alert on. Every adapter failure passes here, so the error log
 * takes them from this function alone.
 */
export function recordIntegrationFailure(log: Logger, f: IntegrationFailure): void {
  log.warn('task tracker integration failed', {
    event: 'integration_failure', integration: 'tracker', tracker_id: f.tracker_id, tracker_type: f.tracker_type, operation: f.operation,
    ...(f.ticket_key ? { ticket_key: f.ticket_key } : {}), ...(f.issue_ids ? { issue_ids: f.issue_ids.slice(0, 20) } : {}),
    gave_up: f.gave_up ?? false, error: errorMessage(f.error),
  });
}
