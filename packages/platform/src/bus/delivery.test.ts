import { expect } from 'chai';
import { AppError, createLogger, currentRequestId, deliver, EventEnvelope, PoisonEvent } from '../index';

const event: EventEnvelope = {
  id: 'e1',
  topic: 't',
  type: 'x.happened',
  key: 'k',
  payload: {},
  headers: {},
  occurredAt: new Date().toISOString(),
};
const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };
const log = createLogger('delivery-test');

describe('event delivery retries', () => {
  it('keeps retrying while a peer is unavailable, beyond the attempts a failing event gets', async () => {
    let calls = 0;
    const outcome = await deliver(
      event,
      async () => {
        calls++;
        if (calls <= 20) throw new AppError('unavailable', 'catalog is unavailable');
      },
      log,
      'g',
      fast,
    );
    expect(outcome).to.equal('handled');
    expect(calls).to.equal(21);
  });

  it('dead-letters an event that fails for its own sake after the last attempt', async () => {
    let calls = 0;
    const outcome = await deliver(
      event,
      async () => {
        calls++;
        throw new Error('cannot handle this event');
      },
      log,
      'g',
      fast,
    );
    expect(outcome).to.equal('dead-lettered');
    expect(calls).to.equal(3);
  });

  it("tells the dead-letter hook once, with the last error and the attempts, in the event's request context", async () => {
    const told: { id: string; error: string; attempts: number; requestId: string | undefined }[] = [];
    const withRequest = { ...event, headers: { 'x-request-id': 'req-dead-1' } };
    const outcome = await deliver(
      withRequest,
      async () => {
        throw new Error('cannot handle this event');
      },
      log,
      'g',
      fast,
      () => false,
      async (e, err, attempts) => {
        told.push({ id: e.id, error: (err as Error).message, attempts, requestId: currentRequestId() });
      },
    );
    expect(outcome).to.equal('dead-lettered');
    expect(told).to.deep.equal([{ id: 'e1', error: 'cannot handle this event', attempts: 3, requestId: 'req-dead-1' }]);
    // A hook that fails itself changes nothing about the outcome.
    expect(
      await deliver(
        event,
        async () => Promise.reject(new Error('bad')),
        log,
        'g',
        fast,
        () => false,
        async () => Promise.reject(new Error('hook down')),
      ),
    ).to.equal('dead-lettered');
  });

  it("counts only the event's own failures when both kinds occur", async () => {
    let calls = 0;
    const outcome = await deliver(
      event,
      async () => {
        calls++;
        throw calls % 2 ? new AppError('unavailable', 'down') : new Error('bad event');
      },
      log,
      'g',
      fast,
    );
    expect(outcome).to.equal('dead-lettered');
    expect(calls).to.equal(6);
  });

  it('dead-letters a poison event at its first attempt, telling the hook why', async () => {
    let calls = 0;
    const told: string[] = [];
    const outcome = await deliver(
      event,
      async () => {
        calls++;
        throw new PoisonEvent('Event x.happened (e1) does not match its schema: id: expected string');
      },
      log,
      'g',
      fast,
      () => false,
      async (e, err, attempts) => {
        told.push(`${e.id} ${attempts} ${(err as Error).message}`);
      },
    );
    expect(outcome).to.equal('dead-lettered');
    expect(calls).to.equal(1);
    expect(told).to.deep.equal(['e1 1 Event x.happened (e1) does not match its schema: id: expected string']);
  });
});
