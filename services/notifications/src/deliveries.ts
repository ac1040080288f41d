import { AppError, Cache, ErrorRecorder, Logger, RateLimiter, SecretBox, ServiceData } from '@bulwark/platform';
import { deliveryStore, DueDelivery } from './store/deliveries';
import { eventStore, SecurityEventRecord } from './store/events';
import { NotifierRecord, notifierStore } from './store/notifiers';
import { webhookTarget } from './notifiers';
import { webhookBody, type WebhookClient } from './webhook';

/** How long a delivery waits after its n-th failed attempt: 1 s, doubling, at most 10 minutes. */
export const retryDelaySeconds = (attempt: number) => Math.min(600, 2 ** (attempt - 1));

/**
 * Sends pending deliveries: at most each notifier's rate per second (shared by every process
 * through the cache), retried with growing delays, given up after `maxAttempts`.
 */
export class DeliveryWorker {
  private readonly limiters = new Map<number, RateLimiter>();

  constructor(
    private readonly deps: {
      data: ServiceData;
      cache: Cache;
      secrets: SecretBox;
      webhooks: WebhookClient;
      log: Logger;
      errors: ErrorRecorder;
      opts: { batch: number; maxAttempts: number };
    },
  ) {}

  private limiter(perSecond: number): RateLimiter {
    let l = this.limiters.get(perSecond);
    if (!l)
      this.limiters.set(
        perSecond,
        (l = this.deps.cache.rateLimiter({
          keyPrefix: `notify-rate-${perSecond}`,
          points: perSecond,
          windowSeconds: 1,
        })),
      );
    return l;
  }

  /** Sends what is due until nothing is. */
  async drain(): Promise<void> {
    for (
      let due = await deliveryStore.claim(this.deps.data.db, this.deps.opts.batch, 120);
      due.length;
      due = await deliveryStore.claim(this.deps.data.db, this.deps.opts.batch, 120)
    ) {
      // The batch's notifiers and events in two queries, not two per delivery.
      const [notifiers, events] = await Promise.all([
        notifierStore.getMany(
          this.deps.data.db,
          due.map((d) => d.notifierId),
        ),
        eventStore.getMany(
          this.deps.data.db,
          due.map((d) => d.eventId),
        ),
      ]);
      await Promise.all(due.map((d) => this.send(d, notifiers.get(d.notifierId), events.get(d.eventId))));
    }
  }

  private async send(
    d: DueDelivery,
    notifier: NotifierRecord | undefined,
    event: SecurityEventRecord | undefined,
  ): Promise<void> {
    // Deleted since the claim: the cascade took the delivery too.
    if (!notifier || !event) return;
    if (!notifier.active) {
      await deliveryStore.attemptFailed(this.deps.data.db, d.id, null, 'notifier is inactive', null);
      return;
    }
    try {
      await this.limiter(notifier.rateLimit).consume(notifier.id);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'rate_limited') throw err;
      await deliveryStore.postpone(this.deps.data.db, d.id, Number(err.headers['Retry-After'] ?? 1) * 1000);
      return;
    }
    const result = await this.deps.webhooks.call(webhookTarget(notifier, this.deps.secrets), webhookBody(event), d.id);
    if (result.delivered) {
      await deliveryStore.delivered(this.deps.data.db, d.id, result.status);
      return;
    }
    const giveUp = result.permanent === true || d.attempts >= this.deps.opts.maxAttempts;
    const error = result.error ?? 'failed';
    if (!giveUp) {
      await deliveryStore.attemptFailed(this.deps.data.db, d.id, result.status, error, retryDelaySeconds(d.attempts));
      this.deps.log.warn('webhook delivery failed; will retry', {
        notifierId: notifier.id,
        deliveryId: d.id,
        attempt: d.attempts,
        status: result.status,
        error,
      });
      return;
    }
    // Given up: the delivery's state and its error-log record commit together.
    await this.deps.data.transaction(async (trx) => {
      await deliveryStore.attemptFailed(trx, d.id, result.status, error, null);
      await this.deps.errors.recordError(
        {
          code: 'webhook.given_up',
          level: 'warning',
          subject: d.id,
          request_id: null,
          message: `Webhook notifier "${notifier.name}" gave up delivering ${event.type} (${event.id}) after ${d.attempts} attempt(s): ${error}`,
          message_ru: `Вебхук «${notifier.name}» прекратил доставку ${event.type} (${event.id}) после попыток: ${d.attempts}; ошибка: ${error}`,
          details: {
            notifier_id: notifier.id,
            event_id: event.id,
            event_type: event.type,
            attempts: d.attempts,
            status: result.status,
          },
        },
        trx,
      );
    });
    this.deps.log.warn('webhook delivery given up', {
      notifierId: notifier.id,
      deliveryId: d.id,
      attempt: d.attempts,
      status: result.status,
      error,
    });
  }
}
