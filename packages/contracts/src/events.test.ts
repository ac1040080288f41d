import { expect } from 'chai';
import { EventEnvelope, PoisonEvent, Trx } from '@bulwark/platform';
import {
  CATALOG_EVENTS,
  EVENT_PAYLOADS,
  EVENT_TOPICS,
  newEvent,
  onEvents,
  SCAN_EVENTS,
  TOPICS,
  TypedEnvelope,
} from './index';

const envelope = (type: string, payload: unknown): EventEnvelope => ({
  id: 'e1',
  type,
  topic: TOPICS.scans,
  key: 'k',
  occurredAt: new Date().toISOString(),
  headers: {},
  payload,
});
const trx = {} as Trx;
const scan = { scan_result_id: 's1', check_id: 'c1', layer_id: 'l1', project_code: 'shop' };

describe('event payloads', () => {
  it('puts every event type on a topic and builds an event on it', () => {
    expect(Object.keys(EVENT_TOPICS)).to.have.members(Object.keys(EVENT_PAYLOADS));
    expect(newEvent(CATALOG_EVENTS.toolCleanedUp, 't1', { id: 't1', removed: { files: 1, bytes: 2 } })).to.deep.equal({
      topic: TOPICS.catalog,
      type: 'tool.cleaned_up',
      key: 't1',
      payload: { id: 't1', removed: { files: 1, bytes: 2 } },
    });
  });

  it('hands a consumer the events of its types, parsed, and ignores the others', async () => {
    const seen: TypedEnvelope<typeof SCAN_EVENTS.scanCompleted>[] = [];
    const effect = onEvents([SCAN_EVENTS.scanCompleted], async (event) => {
      seen.push(event);
    });
    await effect(envelope(SCAN_EVENTS.scanStarted, { nonsense: true }), trx);
    await effect(envelope(SCAN_EVENTS.scanCompleted, { ...scan, findings_count: 2, tool_id: 't1' }), trx);
    expect(seen.map((e) => e.payload)).to.deep.equal([{ ...scan, findings_count: 2, tool_id: 't1' }]);
  });

  it('refuses a payload that breaks its schema as a poison event naming the event and the fields', async () => {
    const effect = onEvents([SCAN_EVENTS.scanCompleted], async () => expect.fail('the handler must not run'));
    const err = await effect(envelope(SCAN_EVENTS.scanCompleted, { ...scan, findings_count: 'two' }), trx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(PoisonEvent);
    expect((err as PoisonEvent).message)
      .to.contain('scan.completed (e1)')
      .and.contain('findings_count')
      .and.contain('tool_id');
    expect((err as PoisonEvent).details.map((d) => d.field)).to.have.members(['findings_count', 'tool_id']);
  });
});
