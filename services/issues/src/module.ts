import {
  defineModule,
  openSecretBox,
  outboundDispatcher,
  peerClient,
  readServiceConfig,
  ServiceHost,
} from '@bulwark/platform';
import { CATALOG_EVENTS, onEvents, routesOf, SCAN_EVENTS, TOPICS } from '@bulwark/contracts';
import { catalogV1, identityV1, issuesV1, scanningV1 } from '@bulwark/proto';
import { CallerScopes } from './caller-scope';
import { readIssuesConfig } from './config';
import { PullRequestDecorations } from './decoration/deliveries';
import { DedupRules } from './dedup-rules';
import { GateConditions } from './gate-conditions';
import { GateEvaluation } from './gate-evaluation';
import { issuesGrpc } from './grpc/issues-grpc';
import { issuesHandlers } from './http/handlers';
import { intelHandlers } from './http/intel-handlers';
import { assistantHandlers } from './http/assistant-handlers';
import { AssistantSettings } from './assistant-settings';
import { IssueEnrichment } from './intel/enrichment';
import { ExploitIntel } from './intel/exploit-intel';
import { FeedDownloader } from './intel/feed-download';
import { trackerHandlers } from './http/tracker-handlers';
import { TrackerHttp } from './integrations/http';
import { CyclonedxExports } from './exports';
import { IngestionDryRun } from './ingestion/dry-run';
import { FindingsSpool } from './ingestion/findings-spool';
import { Ingestion } from './ingestion/ingestion';
import { Issues } from './issues';
import { migrations } from './migrations';
import { Policies } from './policies';
import { QualityGates } from './quality-gates';
import { SecurityRules } from './security-rules';
import { Statuses } from './statuses';
import { trackerUseCases } from './trackers/use-cases';
import { triageHandlers } from './http/triage-handlers';
import { savedViewHandlers } from './http/saved-view-handlers';
import { SavedViews } from './saved-views';
import { slaHandlers } from './http/sla-handlers';
import { SlaBreaches } from './sla/sla-breaches';
import { SlaPolicies } from './sla/sla-policies';
import { SlaProjects } from './sla/sla-projects';
import { IssueAnalyses } from './triage/analyses';
import { IssueAssignments } from './triage/assignments';
import { IdentityDirectory } from './triage/directory';
import { RiskAcceptances } from './triage/risk-acceptances';

export const issuesModule = defineModule({
  name: 'issues',
  dependsOn: ['catalog', 'scanning', 'identity'],
  readConfig: (e, mode) => readServiceConfig(e, mode, 'issues', readIssuesConfig),
  async start(ctx, { config, outbound, host: hostConfig, masterKeys }) {
    const host = await ServiceHost.open(ctx, hostConfig, migrations);
    const scanning = peerClient(ctx, scanningV1.ScanningServiceService, 'scanning', host.auth);
    const catalog = peerClient(ctx, catalogV1.CatalogServiceService, 'catalog', host.auth);
    const identity = peerClient(ctx, identityV1.IdentityServiceService, 'identity', host.auth);
    const directory = new IdentityDirectory(identity);
    const acceptances = new RiskAcceptances({ data: host, directory });
    const scopes = new CallerScopes(catalog);
    const gates = new QualityGates(host, catalog, scopes);
    const rules = new SecurityRules(host, host.log, config.ISSUES_RULE_EXPIRY_POLL_MS);
    const assistants = new AssistantSettings(host);
    const issues = new Issues(host, assistants);
    const trackerHttp = new TrackerHttp(outbound, {
      timeoutMs: config.TRACKERS_TIMEOUT_SECONDS * 1000,
      ratePerSecond: config.TRACKERS_RATE_PER_SECOND,
      attempts: 3,
    });
    ctx.onStop(() => trackerHttp.close());
    const trackers = trackerUseCases({
      data: host,
      secrets: openSecretBox(masterKeys, ctx.dataDir),
      policy: outbound,
      http: trackerHttp,
      log: host.log,
      errors: host,
      push: { pushBatch: 20, pushMaxAttempts: config.TRACKERS_PUSH_MAX_ATTEMPTS },
    });
    const stale = await FindingsSpool.removeStale();
    if (stale > 0) host.log.info('findings spools of stopped processes removed', { count: stale });
    const feedDownloader = new FeedDownloader(outbound, config.INTEL_TIMEOUT_SECONDS * 1000);
    ctx.onStop(() => feedDownloader.close());
    const enrichment = new IssueEnrichment();
    const slaProjects = new SlaProjects();
    const intel = new ExploitIntel({
      data: host,
      downloader: feedDownloader,
      enrichment,
      errors: host,
      log: host.log,
      limits: { maxBytes: config.INTEL_MAX_BYTES, maxDecompressedBytes: config.INTEL_MAX_DECOMPRESSED_BYTES },
      defaults: { epssUrl: config.INTEL_EPSS_URL, kevUrl: config.INTEL_KEV_URL },
    });
    const ingestion = new Ingestion({
      db: host.db,
      scanning,
      catalog,
      gates: new GateEvaluation(),
      intel: enrichment,
      sla: slaProjects,
      log: host.log,
      chunkSize: config.ISSUES_INGEST_CHUNK,
    });
    // What issues knows of a project (catalog_projects): its criticality and its tags, from one event.
    await host.consume(
      'catalog-projects',
      [TOPICS.catalog],
      onEvents([CATALOG_EVENTS.projectCreated, CATALOG_EVENTS.projectUpdated], async (event, trx) => {
        await enrichment.criticalityChanged(trx, event.payload.code, event.payload.criticality);
        await slaProjects.tagsChanged(trx, event.payload.code, event.payload.tags);
      }),
    );
    const dryRun = new IngestionDryRun({ db: host.db, catalog: catalog, ingestion, log: host.log });
    host.grpc.add(issuesV1.IssuesServiceService, 'bulwark.issues.v1.IssuesService', issuesGrpc(host.db, dryRun));
    await host.consume(
      'ingestion',
      [TOPICS.scans],
      onEvents([SCAN_EVENTS.scanCompleted], {
        read: (event) => ingestion.read(event),
        write: (event, trx, input) => ingestion.write(event, trx, input),
        release: (input) => ingestion.release(input),
      }),
    );
    const boms = new CyclonedxExports({
      db: host.db,
      scanning,
      catalog,
      statusNames: () => issues.statusNames(),
    });
    const started = await host.serve(routesOf('issues'), {
      ...issuesHandlers({
        db: host.db,
        issues,
        statuses: new Statuses(host),
        dedupRules: new DedupRules(host),
        rules,
        gates,
        conditions: new GateConditions(host, gates, scopes),
        policies: new Policies(host, gates, scopes),
        tickets: trackers.tickets,
        boms,
      }),
      ...trackerHandlers(trackers),
      ...intelHandlers(intel),
      ...assistantHandlers(assistants),
      ...triageHandlers({
        assignments: new IssueAssignments({ data: host, directory }),
        analyses: new IssueAnalyses(host),
        acceptances,
        issues,
        tickets: trackers.tickets,
      }),
      ...savedViewHandlers(new SavedViews(host)),
      ...slaHandlers(new SlaPolicies(host, scopes)),
    });
    rules.start();
    ctx.onStop(() => rules.stop());
    ctx.every('issue count compaction', config.ISSUES_COUNT_COMPACT_MS, () => issues.compactCounts());
    ctx.every('risk acceptance expiry', config.ISSUES_RULE_EXPIRY_POLL_MS, () => acceptances.expireDue());
    const breaches = new SlaBreaches(host);
    ctx.every('SLA breach announcements', config.ISSUES_SLA_POLL_MS, () => breaches.announceDue());
    ctx.every('tracker status sync', config.TRACKERS_SYNC_MS, () => trackers.sync.syncAll());
    ctx.every('exploit intelligence feeds', config.INTEL_POLL_MS, () => intel.syncIfDue());
    ctx.every('tracker status push', config.TRACKERS_PUSH_POLL_MS, () => trackers.push.drainPushes());
    const decorationDispatcher = outboundDispatcher(outbound);
    ctx.onStop(() => decorationDispatcher.close());
    const decorations = new PullRequestDecorations({
      data: host,
      catalog,
      dispatcher: decorationDispatcher,
      errors: host,
      log: host.log,
      settings: {
        batch: 10,
        maxAttempts: config.ISSUES_DECORATION_MAX_ATTEMPTS,
        consoleUrl: config.ISSUES_CONSOLE_URL,
      },
    });
    ctx.every('pull request decoration', config.ISSUES_DECORATION_POLL_MS, () => decorations.deliverDue());
    return started;
  },
});
