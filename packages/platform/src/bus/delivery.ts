import { AppError, errorMessage, FieldProblem } from '../errors';
import type { Logger } from '../logging';
import { outsideTransaction } from '../db/open-transaction';
import { runWithContext, requestIdFrom, REQUEST_ID_HEADER } from '../context';
import { busEventDuration, busEventsHandled } from '../observability/metrics';
import { extractTrace, Span, SpanKind, SpanStatusCode, startSpan } from '../observability/tracing';
import type { DeadLetterHandler, EventEnvelope, EventHandler } from './types';

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 100, maxDelayMs: 5000 };

/**
 * Thrown by a handler for an event no retry can handle, such as a payload that does not match its
 * type's schema: it is dead-lettered at the first attempt. An AppError, so its text (naming the
 * fields at fault) reaches the error log's record.
 */
export class PoisonEvent extends AppError {
  constructor(message: string, details: FieldProblem[] = []) {
    super('invalid_request', message, details);
    this.name = 'PoisonEvent';
  }
}

const isUnavailable = (err: unknown) => err instanceof AppError && err.code === 'unavailable';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type DeliveryOutcome = 'handled' | 'dead-lettered' | 'interrupted';

/**
 * Runs a handler for one event the same way in both bus adapters: inside the event's request
 * context and a consumer span whose parent is the span that enqueued the event, retried with
 * backoff; after the last attempt that failed for the event's own sake (not a peer being
 * unavailable) the event is logged as dead-lettered and skipped, so one poison event cannot stop a
 * consumer group forever.
 */
export async function deliver(
  event: EventEnvelope,
  handler: EventHandler,
  log: Logger,
  group: string,
  retry: RetryPolicy = DEFAULT_RETRY,
  stopped: () => boolean = () => false,
  onDeadLetter?: DeadLetterHandler,
): Promise<DeliveryOutcome> {
  const started = process.hrtime.bigint();
  const span = startSpan(`${event.topic} process`, {
    kind: SpanKind.CONSUMER,
    component: group,
    parent: extractTrace(event.headers),
    attributes: {
      'messaging.destination.name': event.topic,
      'messaging.consumer.group.name': group,
      'messaging.message.id': event.id,
      'bulwark.event.type': event.type,
    },
  });
  const outcome = await deliverWithRetries(event, handler, log, group, retry, stopped, span, onDeadLetter);
  busEventsHandled.inc({ topic: event.topic, group, outcome });
  busEventDuration.observe({ topic: event.topic, group }, Number(process.hrtime.bigint() - started) / 1e9);
  span.setAttribute('bulwark.delivery.outcome', outcome);
  if (outcome === 'dead-lettered') span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  return outcome;
}

async function deliverWithRetries(
  event: EventEnvelope,
  handler: EventHandler,
  log: Logger,
  group: string,
  retry: RetryPolicy,
  stopped: () => boolean,
  span: Span,
  onDeadLetter: DeadLetterHandler | undefined,
): Promise<DeliveryOutcome> {
  // A foreign message on a shared broker may lack headers: it still gets a request id, not a TypeError.
  const requestId = requestIdFrom(event.headers?.[REQUEST_ID_HEADER]);
  let unavailableAttempts = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      await outsideTransaction(() => runWithContext({ requestId, span }, () => handler(event)));
      return 'handled';
    } catch (err) {
      // A consumer being stopped keeps the event for its next run instead of giving up on it.
      if (stopped()) return 'interrupted';
      // A peer that cannot answer says nothing about the event: waiting for it out-lasts any outage,
      // where dead-lettering would drop the event for good. Only failures of the event itself count.
      if (isUnavailable(err)) unavailableAttempts++;
      if (err instanceof PoisonEvent || attempt - unavailableAttempts >= retry.attempts) {
        log.error('event dead-lettered after failed attempts', {
          group,
          eventId: event.id,
          type: event.type,
          topic: event.topic,
          attempts: attempt,
          error: errorMessage(err),
          requestId,
        });
        // Told inside the event's context, so what it records carries the event's request id.
        if (onDeadLetter) {
          await runWithContext({ requestId, span }, () => onDeadLetter(event, err, attempt)).catch((hookErr: unknown) =>
            log.error('the dead-letter hook failed', { group, eventId: event.id, error: errorMessage(hookErr) }),
          );
        }
        return 'dead-lettered';
      }
      log.warn('event handler failed; retrying', {
        group,
        eventId: event.id,
        type: event.type,
        attempt,
        error: errorMessage(err),
        requestId,
      });
      await sleep(Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)));
    }
  }
}
