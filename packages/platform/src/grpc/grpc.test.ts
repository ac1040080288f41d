import { expect } from 'chai';
import { identityV1 } from '@bulwark/proto';
import {
  AppError,
  createGrpcClient,
  currentRequestId,
  currentSpan,
  grpcClientHandled,
  grpcServerHandled,
  GrpcServer,
  InternalAuth,
  runWithContext,
  SpanKind,
  startSpan,
  traceIdOf,
} from '../index';

const SECRET = 'a-test-secret-of-at-least-thirty-two-chars';
const def = identityV1.IdentityServiceService;

describe('gRPC helpers over a real loopback connection', function () {
  let server: GrpcServer;
  let address: string;
  const seen: { caller: string; requestId: string | undefined; token: string }[] = [];
  const traceIds: (string | undefined)[] = [];

  before(async () => {
    server = new GrpcServer(new InternalAuth(SECRET, 'identity'), 'identity');
    server.add(def, 'bulwark.identity.v1.IdentityService', {
      async authenticate(req, ctx) {
        seen.push({ caller: ctx.caller, requestId: currentRequestId(), token: req.token });
        traceIds.push(traceIdOf(currentSpan()));
        if (req.token === 'missing') throw new AppError('not_found', 'No such token');
        if (req.token === 'slow') await new Promise((r) => setTimeout(r, 500));
        if (req.token === 'boom') throw new Error('database password is hunter2');
        if (req.token.startsWith('unknown:'))
          throw new AppError('invalid_request', `Unknown project ${req.token.slice(8)}`, [
            { field: 'project_code', problem: `has no project ${req.token.slice(8)}` },
          ]);
        // What the server does with a non-Error thrown value.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        if (req.token === 'throws-undefined') throw undefined;
        return {
          userId: 'u1',
          username: 'alice',
          permissions: [{ key: 'k', letters: ['r'] }],
          allProjects: true,
          projects: [],
          scopes: {},
          tokenKind: 'api',
          tokenId: 't',
          expiresAt: '',
        };
      },
      // Not called here: the service definition has them, so the implementation must too.
      async getLicenseLimits() {
        throw new AppError('not_found', 'No license limits in this test');
      },
      async findAssignees() {
        throw new AppError('not_found', 'No assignees in this test');
      },
    });
    address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });

  after(async () => server.stop(1000));

  it('carries the caller service and the request id, and returns the response', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'));
    const res = await runWithContext({ requestId: 'req-123' }, () => client.authenticate({ token: 'ok' }));
    close();
    expect(res.username).to.equal('alice');
    expect(res.permissions).to.deep.equal([{ key: 'k', letters: ['r'] }]);
    expect(seen.at(-1)).to.deep.equal({ caller: 'gateway', requestId: 'req-123', token: 'ok' });
  });

  it('carries the caller\u2019s trace context in the metadata, and counts calls on both sides by method and status code', async () => {
    const count = async (metric: typeof grpcServerHandled, code: string) =>
      (await metric.get()).values
        .filter((v) => v.labels.method === 'bulwark.identity.v1.IdentityService/Authenticate' && v.labels.code === code)
        .reduce((n, v) => n + v.value, 0);
    const before = {
      serverOk: await count(grpcServerHandled, 'OK'),
      clientNotFound: await count(grpcClientHandled, 'NOT_FOUND'),
    };
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'));
    const caller = startSpan('caller', { kind: SpanKind.INTERNAL, component: 'test' });
    await runWithContext({ requestId: 'req-traced', span: caller }, () => client.authenticate({ token: 'ok' }));
    await client.authenticate({ token: 'missing' }).catch(() => undefined);
    close();
    expect(traceIds.at(-2))
      .to.match(/^[0-9a-f]{32}$/)
      .and.equal(traceIdOf(caller));
    expect(await count(grpcServerHandled, 'OK')).to.equal(before.serverOk + 1);
    expect(await count(grpcClientHandled, 'NOT_FOUND')).to.equal(before.clientNotFound + 1);
  });

  it('turns a service AppError back into the same AppError, and hides internal errors', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'));
    const notFound = await client.authenticate({ token: 'missing' }).catch((e: unknown) => e);
    const internal = await client.authenticate({ token: 'boom' }).catch((e: unknown) => e);
    close();
    expect(notFound).to.be.instanceOf(AppError);
    expect((notFound as AppError).code).to.equal('not_found');
    expect((notFound as AppError).message).to.equal('No such token');
    expect((internal as AppError).code).to.equal('internal');
    expect((internal as AppError).message).not.to.contain('hunter2');
  });

  it('carries an error whose text is not ASCII (accents, CJK, emoji) unchanged, and the server keeps serving', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'));
    for (const code of ['\u00e9', '\u65e5\u672c', '\ud83d\ude00']) {
      const err = await client.authenticate({ token: `unknown:${code}` }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(AppError);
      expect((err as AppError).code).to.equal('invalid_request');
      expect((err as AppError).message).to.equal(`Unknown project ${code}`);
      expect((err as AppError).details).to.deep.equal([{ field: 'project_code', problem: `has no project ${code}` }]);
    }
    expect((await client.authenticate({ token: 'ok' })).username).to.equal('alice');
    close();
  });

  it('answers internal, without crashing, for a handler that throws something that is not an Error', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'));
    const err = await client.authenticate({ token: 'throws-undefined' }).catch((e: unknown) => e);
    expect((err as AppError).code).to.equal('internal');
    expect((await client.authenticate({ token: 'ok' })).username).to.equal('alice');
    close();
  });

  it('refuses a caller that cannot show a token signed with the internal secret', async () => {
    const { client, close } = createGrpcClient(
      def,
      'identity',
      address,
      new InternalAuth('another-secret-that-is-long-enough-123', 'intruder'),
    );
    const err = await client.authenticate({ token: 'ok' }).catch((e: unknown) => e);
    close();
    expect((err as AppError).code).to.equal('unauthenticated');
  });

  it('gives up at the deadline', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'), {
      deadlineMs: 100,
    });
    const err = await client.authenticate({ token: 'slow' }).catch((e: unknown) => e);
    close();
    expect((err as AppError).code).to.equal('unavailable');
  });

  it('opens the circuit after repeated failures: further calls fail fast without reaching the peer', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'), {
      resetTimeoutMs: 60000,
    });
    for (let i = 0; i < 6; i++) await client.authenticate({ token: 'boom' }).catch(() => undefined);
    const reached = seen.length;
    const errors = await Promise.all(
      [1, 2, 3].map(() => client.authenticate({ token: 'ok' }).catch((e: unknown) => e)),
    );
    close();
    expect(seen.length).to.equal(reached);
    for (const err of errors) expect((err as AppError).code).to.equal('unavailable');
  });

  it('does not count business errors against the peer', async () => {
    const { client, close } = createGrpcClient(def, 'identity', address, new InternalAuth(SECRET, 'gateway'));
    for (let i = 0; i < 8; i++) await client.authenticate({ token: 'missing' }).catch(() => undefined);
    const res = await client.authenticate({ token: 'ok' });
    close();
    expect(res.username).to.equal('alice');
  });
});
