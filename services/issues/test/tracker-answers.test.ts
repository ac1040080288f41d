import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { readOutboundPolicy } from '@bulwark/platform';
import { MAX_ANSWER_BYTES, TrackerHttp } from '../src/integrations/http';
import { JiraTracker } from '../src/integrations/jira';
import { TrackerError } from '../src/integrations/port';
import { RedmineTracker } from '../src/integrations/redmine';

/** A tracker that answers every request with what the test sets: a hostile or broken server. */
function hostileTracker() {
  let answer: (res: http.ServerResponse) => void = (res) => res.end('{}');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  return {
    server,
    answerJson(status: number, body: unknown) {
      answer = (res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
    },
    answerWith(fn: (res: http.ServerResponse) => void) {
      answer = fn;
    },
  };
}

async function refusal(call: Promise<unknown>): Promise<TrackerError> {
  try {
    await call;
  } catch (err) {
    expect(err).to.be.instanceOf(TrackerError);
    return err as TrackerError;
  }
  throw new Error('the call was not refused');
}

describe('task tracker answers are checked before use', function () {
  const tracker = hostileTracker();
  let base: string;
  let trackerHttp: TrackerHttp;
  let jira: JiraTracker;
  let redmine: RedmineTracker;

  before(async () => {
    await new Promise<void>((resolve) => tracker.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(tracker.server.address() as AddressInfo).port}`;
    trackerHttp = new TrackerHttp(readOutboundPolicy({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' }), {
      timeoutMs: 5000,
      ratePerSecond: 1000,
      attempts: 1,
    });
    jira = new JiraTracker({ http: trackerHttp, base, credentials: { token: 't' }, version: 3 });
    redmine = new RedmineTracker(trackerHttp, base, { api_key: 'k' });
  });
  after(async () => {
    await trackerHttp.close();
    await new Promise((resolve) => tracker.server.close(resolve));
  });

  it('reads a well-formed answer, ignoring fields it does not use', async () => {
    tracker.answerJson(200, {
      key: 'SEC-7',
      id: '10001',
      fields: { status: { name: 'Done', statusCategory: { key: 'done', colorName: 'green' } }, summary: 'x' },
    });
    expect(await jira.get('SEC-7')).to.deep.equal({
      key: 'SEC-7',
      url: `${base}/browse/SEC-7`,
      status: 'Done',
      closed: true,
    });
  });

  it('refuses a ticket key that is not one (it would become part of a link), naming the field', async () => {
    tracker.answerJson(200, { key: '../../admin', fields: {} });
    const err = await refusal(jira.get('SEC-7'));
    expect(err.permanent).to.equal(true);
    expect(err.message).to.contain('GET /rest/api/3/issue/SEC-7').and.contain('answer.key');
  });

  it('refuses answers of the wrong shape, naming the field, and answers that are not JSON', async () => {
    tracker.answerJson(200, { issues: [{ id: '1', status: { id: 1, name: 'New' } }] });
    expect((await refusal(redmine.states(['1']))).message).to.contain('answer.issues.0.id');
    tracker.answerJson(200, { issues: 'none' });
    expect((await refusal(redmine.states(['1']))).message).to.contain('answer.issues');
    tracker.answerJson(200, { key: 'SEC-7', fields: { status: { name: 'x'.repeat(300) } } });
    expect((await refusal(jira.get('SEC-7'))).message).to.contain('answer.fields.status.name');
    tracker.answerJson(200, '<html>login</html>');
    expect((await refusal(redmine.states(['1']))).message).to.contain('not JSON');
    tracker.answerJson(200, '');
    expect((await refusal(redmine.states(['1']))).message).to.contain('empty body');
  });

  it(`stops reading an answer past ${MAX_ANSWER_BYTES} bytes, declared or streamed`, async () => {
    tracker.answerWith((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_ANSWER_BYTES + 1) });
      res.end();
    });
    expect((await refusal(jira.get('SEC-7'))).message).to.contain(`more than ${MAX_ANSWER_BYTES} bytes`);
    let sent = 0;
    tracker.answerWith((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (sent < MAX_ANSWER_BYTES * 4) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => res.destroy());
      more();
    });
    expect((await refusal(jira.get('SEC-7'))).message).to.contain(`more than ${MAX_ANSWER_BYTES} bytes`);
    expect(sent).to.be.below(MAX_ANSWER_BYTES * 4);
  });
});
