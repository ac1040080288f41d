import { expect } from 'chai';
import { OutboundPolicy, outboundDispatcher, readOutboundPolicy } from '@bulwark/platform';
import type { Agent, Dispatcher } from 'undici';
import type { DecorationPlatform, PullRequestRef } from '../src/decoration/platform';
import { renderSummary, SUMMARY_MARKER } from '../src/decoration/summary';

/** A finding whose title and path try to add a link, a mention, a reference and HTML to the comment. */
export const hostile = {
  id: '5d0f1c1e-0000-4000-8000-000000000001',
  severity: 'High',
  title: 'SQLi [click](https://evil.example) @admin !12 <img src=x onerror=alert(1)>',
  path: 'src/<b>db</b>.ts',
  line: 12,
};

/** A contract server as the shared cases see it: the request's summary comments and what it was sent. */
export interface PlatformServer {
  url: string;
  token: string;
  requests: string[];
  violations: string[];
  refusing: boolean;
  /** The comments (GitHub) or notes (GitLab) of request 7. */
  comments(): { id: number; body: string }[];
  /** Puts other people's comments on request 7 before any of Bulwark's. */
  seed(comments: { id: number; body: string }[]): void;
  close(): Promise<void>;
}

export interface DecoratorSpec {
  pr: PullRequestRef;
  start(): Promise<PlatformServer>;
  connect(url: string, token: string, dispatcher: Dispatcher): Promise<DecorationPlatform>;
  /** Sends the server a body the platform's contract refuses; answers the status it got. */
  sendForbiddenBody(server: PlatformServer): Promise<number>;
  /** The status the platform answers a body it refuses with. */
  refusedWith: number;
}

/**
 * A contract server started before the tests of the enclosing `describe` and closed after, with a
 * decorator connected to it through the outbound policy (127.0.0.1 allowed); each test must leave
 * the server without a contract violation.
 */
export function platformHarness<
  S extends { url: string; token: string; violations: string[]; close(): Promise<void> },
  D,
>(
  start: () => Promise<S>,
  connect: (url: string, token: string, dispatcher: Dispatcher) => Promise<D>,
): { server: S; agent: Agent; decorator: D } {
  const h = {} as { server: S; agent: Agent; decorator: D };
  before(async () => {
    h.server = await start();
    h.agent = outboundDispatcher(readOutboundPolicy({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' }));
    h.decorator = await connect(h.server.url, h.server.token, h.agent);
  });
  after(async () => {
    await h.agent.close();
    await h.server.close();
  });
  afterEach(() => expect(h.server.violations).to.deep.equal([]));
  return h;
}

export const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as { status?: number },
  );

/**
 * What every platform's decorator must do with the summary comment, against its contract server:
 * the first one escaped, the update in place, nothing rewritten on a rerun, a refusal failing
 * without a trace and the next try succeeding, the outbound policy, and a wrong token refused.
 */
export function summaryCommentCases(spec: DecoratorSpec): void {
  const { pr } = spec;
  const h = platformHarness(
    () => spec.start(),
    (url, token, d) => spec.connect(url, token, d),
  );
  const summary = (verdict: 'passed' | 'failed', newIssues = [hostile]) =>
    renderSummary({
      verdict,
      failedConditions: verdict === 'failed' ? ['High issues: 1 > 0'] : [],
      newIssues,
      fixedIssues: [],
      consoleUrl: 'https://bulwark.example/projects/SHOP',
      diffLink: (path, line) => h.decorator.diffLink(pr, path, line),
    });

  it('has a contract h.server that refuses a body the platform’s contract does not allow', async () => {
    expect(await spec.sendForbiddenBody(h.server)).to.equal(spec.refusedWith);
    expect(h.server.violations.splice(0)).to.have.length(1);
  });

  it('finds its comment among other people’s comments on later pages', async () => {
    const other = await spec.start();
    try {
      const d = await spec.connect(other.url, other.token, h.agent);
      other.seed(Array.from({ length: 150 }, (_, i) => ({ id: i + 1, body: `a person's comment ${i}` })));
      const id = await d.upsertSummary(pr, `${SUMMARY_MARKER}\nfirst`);
      await d.upsertSummary(pr, `${SUMMARY_MARKER}\nsecond`);
      expect(other.comments().filter((c) => c.body.includes(SUMMARY_MARKER))).to.deep.equal([
        { id, body: `${SUMMARY_MARKER}\nsecond` },
      ]);
      expect(other.violations).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it('posts the first summary comment, escaped, with the marker', async () => {
    const id = await h.decorator.upsertSummary(pr, summary('failed'));
    const comments = h.server.comments();
    expect(comments).to.have.length(1);
    expect(comments[0].id).to.equal(id);
    expect(comments[0].body).to.contain(SUMMARY_MARKER);
    expect(comments[0].body).to.contain('❌ Quality gate failed');
    expect(comments[0].body).not.to.contain('[click](https://evil');
    expect(comments[0].body).to.contain('\\<img');
    expect(comments[0].body).not.to.match(/[^\\]<(img|b)\b/);
    expect(comments[0].body).not.to.contain('@admin');
    expect(comments[0].body).not.to.contain('!12');
  });

  it('updates the same comment in place on a rescan, never adding one', async () => {
    const first = h.server.comments()[0].id;
    expect(await h.decorator.upsertSummary(pr, summary('passed', []))).to.equal(first);
    expect(h.server.comments()).to.have.length(1);
    expect(h.server.comments()[0].body).to.contain('✅ Quality gate passed');
  });

  it('leaves an unchanged comment alone on a rerun of the same scan', async () => {
    const before = h.server.requests.length;
    await h.decorator.upsertSummary(pr, summary('passed', []));
    expect(h.server.requests.slice(before).filter((r) => !r.startsWith('GET'))).to.deep.equal([]);
    expect(h.server.comments()).to.have.length(1);
  });

  it('fails while the platform refuses, changing nothing, and succeeds when it is back', async () => {
    h.server.refusing = true;
    expect((await refusal(h.decorator.upsertSummary(pr, summary('failed'))))?.status).to.equal(503);
    h.server.refusing = false;
    await h.decorator.upsertSummary(pr, summary('failed'));
    expect(h.server.comments()).to.have.length(1);
    expect(h.server.comments()[0].body).to.contain('❌ Quality gate failed');
  });

  it('sends nothing to an address the outbound policy denies', async () => {
    const strict = outboundDispatcher(new OutboundPolicy());
    try {
      const d = await spec.connect(h.server.url, h.server.token, strict);
      const before = h.server.requests.length;
      expect(await refusal(d.upsertSummary(pr, summary('failed')))).to.be.instanceOf(Error);
      expect(h.server.requests.length).to.equal(before);
    } finally {
      await strict.close();
    }
  });

  it('sends the token only as the Authorization header: a wrong one is refused', async () => {
    const d = await spec.connect(h.server.url, 'wrong', h.agent);
    expect((await refusal(d.upsertSummary(pr, summary('failed'))))?.status).to.equal(401);
  });
}
