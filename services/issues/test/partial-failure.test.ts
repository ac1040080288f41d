import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AppError, createGrpcClient, createLogger, InternalAuth } from '@bulwark/platform';
import { catalogV1, scanningV1 } from '@bulwark/proto';
import { DATABASE_BACKENDS, freePort, TestDatabase } from '@bulwark/testkit';
import { migrations } from '../src/migrations';
import { SCAN_EVENTS, TOPICS } from '@bulwark/contracts';
import { GateEvaluation } from '../src/gate-evaluation';
import { IssueEnrichment } from '../src/intel/enrichment';
import { SlaProjects } from '../src/sla/sla-projects';
import { Ingestion } from '../src/ingestion/ingestion';
import type { ScanCompleted } from '../src/ingestion/input';

// The catalog and scanning are real gRPC clients aimed at a port where nothing listens: the failure
// a real outage gives, not a stand-in for it.
describe('quality gates while the catalog is down (embedded PostgreSQL)', function () {
  let t: TestDatabase;
  let closeClients: () => void;
  let ingestion: Ingestion;

  before(async function () {
    t = await DATABASE_BACKENDS[0].open(this, 'issues', migrations);
    const auth = new InternalAuth(randomBytes(32).toString('hex'), 'issues');
    const address = `127.0.0.1:${await freePort()}`;
    const catalog = createGrpcClient(catalogV1.CatalogServiceService, 'catalog', address, auth, { deadlineMs: 1000 });
    const scanning = createGrpcClient(scanningV1.ScanningServiceService, 'scanning', address, auth, {
      deadlineMs: 1000,
    });
    closeClients = () => [catalog, scanning].forEach((c) => c.close());
    ingestion = new Ingestion({
      db: t.db,
      scanning: scanning.client,
      catalog: catalog.client,
      gates: new GateEvaluation(),
      intel: new IssueEnrichment(),
      sla: new SlaProjects(),
      log: createLogger('issues'),
      chunkSize: 500,
    });
  });
  after(async () => {
    closeClients?.();
    await t?.close();
  });

  it('fails the reads before ingestion instead of evaluating gates without the policies of the project (which may hold a lock gate)', async () => {
    const scan: ScanCompleted = {
      scan_result_id: randomUUID(),
      check_id: randomUUID(),
      layer_id: randomUUID(),
      project_code: 'payments',
      findings_count: 0,
      tool_id: randomUUID(),
    };
    let error: unknown;
    try {
      await ingestion.read({
        id: randomUUID(),
        type: SCAN_EVENTS.scanCompleted,
        topic: TOPICS.scans,
        key: scan.check_id,
        occurredAt: new Date().toISOString(),
        payload: scan,
        headers: {},
      });
    } catch (err) {
      error = err;
    }
    expect(error, 'the reads must not succeed').to.be.instanceOf(AppError);
    expect((error as AppError).code).to.equal('unavailable');
  });
});
