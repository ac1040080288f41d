import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AppError, createGrpcClient, EventEnvelope, handleOnce, InternalAuth } from '@bulwark/platform';
import { catalogV1 } from '@bulwark/proto';
import { DATABASE_BACKENDS, freePort, TestDatabase } from '@bulwark/testkit';

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('the call must fail'),
    (err: unknown) => err,
  );

// A real client aimed at a port where nothing listens: outside a transaction the call is made (and
// fails as unavailable); inside one it is refused before it leaves the process.
describe('no remote call inside an open transaction (embedded PostgreSQL)', function () {
  let t: TestDatabase;
  let catalog: ReturnType<typeof createGrpcClient<typeof catalogV1.CatalogServiceService>>;

  before(async function () {
    t = await DATABASE_BACKENDS[0].open(this, 'platform', []);
    const auth = new InternalAuth(randomBytes(32).toString('hex'), 'issues');
    catalog = createGrpcClient(catalogV1.CatalogServiceService, 'catalog', `127.0.0.1:${await freePort()}`, auth, {
      deadlineMs: 1000,
    });
  });
  after(async () => {
    catalog?.close();
    await t?.close();
  });

  const call = () => catalog.client.getProject({ code: 'payments' });

  it('refuses a gRPC call made by the work of a transaction, as a programming error naming the call', async () => {
    const err = await failure(t.db.transaction(async () => call()));
    expect(err).to.be.instanceOf(Error).and.not.be.instanceOf(AppError);
    expect((err as Error).message).to.contain('catalog/bulwark.catalog.v1.CatalogService/GetProject');
    expect((err as Error).message).to.contain('inside an open database transaction');
  });

  it('makes the call before and after a transaction', async () => {
    expect(await failure(call())).to.be.instanceOf(AppError);
    await t.db.transaction(async (trx) => trx.raw('select 1'));
    const err = await failure(call());
    expect((err as AppError).code).to.equal('unavailable');
  });

  it("lets a consumer's read phase call out and refuses the same call in its write phase", async () => {
    const seen: string[] = [];
    const event: EventEnvelope = {
      id: randomUUID(),
      type: 'tick',
      topic: 'ticks',
      key: 'k',
      occurredAt: new Date().toISOString(),
      payload: {},
      headers: {},
    };
    const handler = handleOnce(t.db, `open-transaction-${randomUUID()}`, {
      read: async () => {
        seen.push(`read: ${((await failure(call())) as AppError).code}`);
      },
      write: async () => {
        await call();
      },
    });
    const err = await failure(handler(event));
    expect(seen).to.deep.equal(['read: unavailable']);
    expect((err as Error).message).to.contain('inside an open database transaction');
  });
});
