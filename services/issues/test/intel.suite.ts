import { expect } from 'chai';
import {
  type ApiResponse,
  expectStatus,
  fieldProblem,
  GitServer,
  type Json,
  SystemUnderTest,
  uniqueSuffix,
  uploadAndIngest,
  manualCheck,
} from '@bulwark/testkit';
import { appRepository, uploadProject, type UploadProject } from './uploaded-issues';
import { epssCsv, FeedServer, fillerCves, kevJson, type EpssRow } from './feed-server';

/** A generic findings report: one finding per entry, with the scanner's own EPSS and KEV where given. */
function report(findings: { id: string; aliases?: string[]; epss?: number; kev?: boolean }[]): string {
  return JSON.stringify({
    findings: findings.map((f) => ({
      title: `Vulnerable library (${f.id})`,
      description: 'A vulnerable version',
      severity: 'High',
      ...(f.id.startsWith('CVE-') ? { cve: f.id } : { vuln_id_from_tool: f.id }),
      vulnerability_ids: (f.aliases ?? []).map((a) => ({ vulnerability_id: a })),
      component_name: `lib-${f.id.toLowerCase()}`,
      component_version: '1.0.0',
      ...(f.epss === undefined ? {} : { epss_score: f.epss }),
      ...(f.kev ? { known_exploited: true } : {}),
    })),
  });
}

/**
 * Exploit intelligence (issue #30, points 1 and 2): the EPSS and KEV feeds fetched from a feed server
 * the test starts, imported as files, refused when malformed, oversized, slow or at a refused
 * address (the last good data stays), and the issues naming their CVEs enriched set-wise.
 */
export function intelSuite(t: SystemUnderTest): void {
  const feeds = new FeedServer();
  let git: GitServer;
  let P: UploadProject;
  let check: string;
  const run = Math.floor(Math.random() * 90000) + 10000;
  const cve = (n: number) => `CVE-2033-${run}${n}`;
  /** In EPSS and KEV; in EPSS only; in neither (the scanner's values stay); an alias of a GHSA id in both; found later. */
  const [inBoth, epssOnly, inNeither, alias, later] = [cve(1), cve(2), cve(3), cve(4), cve(5)];
  const ghsa = `GHSA-${run}-aaaa-bbbb`;
  const epssRows = (score: number): EpssRow[] => [
    ...fillerCves(300).map((c, i) => ({ cve: c, epss: (i % 100) / 1000, percentile: (i % 100) / 100 })),
    { cve: inBoth, epss: score, percentile: 0.99 },
    { cve: epssOnly, epss: 0.01234, percentile: 0.5 },
    { cve: alias, epss: 0.5, percentile: 0.9 },
    { cve: later, epss: 0.7, percentile: 0.95 },
  ];
  const kevEntries = [
    ...fillerCves(200, 2020).map((c) => ({ cve: c, dueDate: '2026-12-01' })),
    { cve: inBoth, dueDate: '2026-12-18' },
    { cve: alias, dueDate: '2027-01-05' },
  ];

  const ok = (res: ApiResponse) => expectStatus(res, 200);
  const byCve = async () => {
    const items = ok(await t.admin.get(`/api/v1/issues?limit=1000&filter[project_code]=${P.code}`)).items as Json[];
    return new Map(items.map((i) => [(i.vulnerability_ids as string[]).find((v) => v.startsWith('CVE-')) ?? i.cve, i]));
  };
  const ingest = async (findings: Parameters<typeof report>[0], into = check) =>
    uploadAndIngest(t.admin, into, report(findings), findings.length);
  const settle = async (urls: { epss_url?: string; kev_url?: string }) =>
    ok(await t.admin.put('/api/v1/intel/settings', urls));
  const sync = async () => ok(await t.admin.post('/api/v1/intel/sync'));

  before(async function () {
    this.timeout(120000);
    await feeds.start();
    git = await appRepository();
    P = await uploadProject(t, git);
    check = await manualCheck(t.admin, P);
    await ingest([
      { id: inBoth },
      { id: epssOnly, kev: false },
      { id: inNeither, epss: 0.33, kev: true },
      { id: ghsa, aliases: [alias] },
    ]);
  });
  after(async () => {
    // The other suites find the feeds as the test system starts them: off, at a closed local port.
    await settle({ epss_url: 'http://127.0.0.1:9/epss.csv.gz', kev_url: 'http://127.0.0.1:9/kev.json' });
    ok(await t.admin.put('/api/v1/intel/settings', { enabled: false }));
    await feeds.close();
    await git?.close();
  });

  it('starts disabled, at the configured addresses, every 24 hours, and validates a change naming the field', async () => {
    const settings = ok(await t.admin.get('/api/v1/intel/settings'));
    expect(settings).to.include({ enabled: false, interval_hours: 24 });
    expect(settings.epss_url).to.match(/^http:\/\/127\.0\.0\.1:9\//);
    expect(
      fieldProblem(await t.admin.put('/api/v1/intel/settings', { epss_url: 'ftp://feeds.example/e.csv' }), 'epss_url'),
    ).to.be.a('string');
    expect(
      fieldProblem(
        await t.admin.put('/api/v1/intel/settings', { kev_url: 'https://u:p@feeds.example/k.json' }),
        'kev_url',
      ),
    ).to.contain('credentials');
    expect(
      fieldProblem(await t.admin.put('/api/v1/intel/settings', { interval_hours: 0 }), 'interval_hours'),
    ).to.contain('at least 1');
    expect(fieldProblem(await t.admin.put('/api/v1/intel/settings', { enabled: 'yes' }), 'enabled')).to.be.a('string');
    expect(ok(await t.admin.get('/api/v1/intel/settings')).enabled).to.equal(false);
  });

  it('fetches both feeds (EPSS gzipped) and enriches the existing issues; a scanner\u2019s own values stay where the feeds have none', async () => {
    await settle({
      epss_url: feeds.put('/epss.csv.gz', epssCsv(epssRows(0.91234)), true),
      kev_url: feeds.put('/kev.json', kevJson(kevEntries)),
    });
    const result = await sync();
    expect(result).to.deep.equal({
      epss: { records: 304, score_date: '2026-11-27T12:55:00.000Z', error: null },
      kev: { records: 202, catalog_version: '2026.11.27', error: null },
    });
    const issues = await byCve();
    expect(issues.get(inBoth)).to.include({
      epss: 0.91234,
      epss_percentile: 0.99,
      known_exploited: true,
      kev_due_date: '2026-12-18',
    });
    expect(issues.get(epssOnly)).to.include({
      epss: 0.01234,
      epss_percentile: 0.5,
      known_exploited: false,
      kev_due_date: null,
    });
    expect(issues.get(inNeither)).to.include({
      epss: 0.33,
      epss_percentile: null,
      known_exploited: true,
      kev_due_date: null,
    });
    expect(issues.get(alias)).to.include({ epss: 0.5, known_exploited: true, kev_due_date: '2027-01-05' });
    const ids = (q: string) =>
      t.admin.get(`/api/v1/issues?limit=1000&filter[project_code]=${P.code}&${q}`).then((r) => ok(r).items.length);
    expect(await ids('filter[exploitability]=known_exploited')).to.equal(3);
    expect(await ids('filter[epss_min]=0.4')).to.equal(2);

    const status = ok(await t.admin.get('/api/v1/intel/status'));
    const epss = (status.feeds as Json[]).find((f) => f.feed === 'epss');
    expect(epss).to.include({
      records: 304,
      version: '2026-11-27T12:55:00.000Z',
      model_version: 'v2025.03.14',
      origin: 'fetch',
      error: null,
    });
    expect(Date.parse(epss.loaded_at)).to.be.greaterThan(Date.now() - 120000);
  });

  it('enriches an issue found after the feeds were loaded at its ingestion', async () => {
    // Another check of the layer: a scan of the first one without the earlier findings would fix their issues.
    await ingest([{ id: later }], await manualCheck(t.admin, P));
    expect((await byCve()).get(later)).to.include({ epss: 0.7, epss_percentile: 0.95, known_exploited: false });
  });

  it('imports a feed file (gzipped or not) and re-enriches every open issue', async () => {
    const gz = (await import('node:zlib')).gzipSync(epssCsv(epssRows(0.45678), '2026-11-28T12:55:00+0000'));
    const imported = ok(
      await t.admin
        .withHeaders({ 'content-type': 'application/octet-stream' })
        .request('POST', '/api/v1/intel/import?feed=epss', undefined, gz),
    );
    expect(imported).to.deep.equal({ feed: 'epss', records: 304, version: '2026-11-28T12:55:00.000Z' });
    expect((await byCve()).get(inBoth)).to.include({ epss: 0.45678 });

    const kev = ok(
      await t.admin
        .withHeaders({ 'content-type': 'application/json' })
        .request('POST', '/api/v1/intel/import?feed=kev', undefined, kevJson(kevEntries.slice(0, 201), '2026.11.28')),
    );
    expect(kev).to.deep.equal({ feed: 'kev', records: 201, version: '2026.11.28' });
    const issues = await byCve();
    expect(issues.get(inBoth)).to.include({ known_exploited: true, kev_due_date: '2026-12-18' });
    expect(issues.get(alias)).to.include({ known_exploited: false, kev_due_date: null });
    const status = ok(await t.admin.get('/api/v1/intel/status'));
    expect((status.feeds as Json[]).find((f) => f.feed === 'kev')).to.include({
      origin: 'import',
      version: '2026.11.28',
    });
  });

  it('refuses a malformed import naming body, and an unknown feed naming feed; nothing changes', async () => {
    const bad = async (feed: string, text: string) =>
      t.admin
        .withHeaders({ 'content-type': 'text/csv' })
        .request('POST', `/api/v1/intel/import?feed=${feed}`, undefined, text);
    expect(fieldProblem(await bad('epss', `${epssCsv(epssRows(0.2))}CVE-2020-11111,high,0.5\n`), 'body')).to.match(
      /line 307: epss/,
    );
    expect(fieldProblem(await bad('epss', 'cve,epss,percentile\nCVE-2020-11111,0.1,0.2\n'), 'body')).to.contain(
      'score_date',
    );
    expect(
      fieldProblem(
        await bad('kev', '{"catalogVersion":"1","vulnerabilities":[{"cveID":"nope","dateAdded":"2026-01-01"}]}'),
        'body',
      ),
    ).to.contain('vulnerabilities.0.cveID');
    expect(fieldProblem(await bad('kev', 'not json'), 'body')).to.contain('not JSON');
    // A date of the right shape that no calendar has is the file's fault, not the server's.
    expect(
      fieldProblem(await bad('kev', kevJson([{ cve: 'CVE-2020-11111', dueDate: '2026-02-30' }])), 'body'),
    ).to.contain('vulnerabilities.0.dueDate');
    fieldProblem(await bad('nvd', 'x'), 'feed');
    expect((await byCve()).get(inBoth)).to.include({ epss: 0.45678, known_exploited: true });
  });

  describe('a failed fetch keeps the last good data and says why in the error log', () => {
    const kept = async () => {
      const issues = await byCve();
      expect(issues.get(inBoth)).to.include({ epss: 0.45678, known_exploited: true });
      const status = ok(await t.admin.get('/api/v1/intel/status'));
      return new Map((status.feeds as Json[]).map((f) => [f.feed, f]));
    };
    const failing = async (urls: { epss_url?: string; kev_url?: string }) => {
      await settle(urls);
      return sync();
    };

    it('malformed feeds', async () => {
      const result = await failing({
        epss_url: feeds.put('/bad.csv.gz', 'cve,epss,percentile\nCVE-2020-1234,0.5\n', true),
        kev_url: feeds.put('/bad.json', JSON.stringify({ catalogVersion: '9', vulnerabilities: [] })),
      });
      expect(result.epss).to.include({ records: 304, score_date: '2026-11-28T12:55:00.000Z' });
      expect(result.epss.error).to.contain('score_date');
      expect(result.kev).to.include({ records: 201, catalog_version: '2026.11.28' });
      expect(result.kev.error).to.contain('lists no vulnerability');
      const status = await kept();
      expect(status.get('kev').error).to.contain('lists no vulnerability');
      expect(status.get('kev').version).to.equal('2026.11.28');
      const deadline = Date.now() + 20000;
      for (;;) {
        const logged = ok(await t.admin.get('/api/v1/errors-log?filter[code]=intel.feed_failed&limit=100'))
          .items as Json[];
        if (logged.some((e) => e.message.includes('lists no vulnerability') && e.service === 'issues')) break;
        if (Date.now() > deadline) throw new Error(`no intel.feed_failed record: ${JSON.stringify(logged)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    });

    it('a feed above the size limit, and a gzip file that expands beyond the uncompressed limit', async () => {
      const result = await failing({
        epss_url: feeds.put('/bomb.csv.gz', Buffer.alloc(6 << 20, 0x30), true),
        kev_url: feeds.put('/big.json', Buffer.alloc(2 << 20, 0x20)),
      });
      expect(result.epss.error).to.contain('the uncompressed feed is larger than');
      expect(result.kev.error).to.contain('the feed is larger than');
      await kept();
    });

    it('a server that does not answer in time, a redirect, and an address the outbound policy refuses', async function () {
      this.timeout(30000);
      const result = await failing({ epss_url: feeds.url('/hang'), kev_url: feeds.url('/kev.json', '127.0.0.2') });
      expect(result.epss.error).to.match(/no complete answer from 127\.0\.0\.1:\d+ within 2000 ms/);
      expect(result.kev.error).to.equal(`Host unreachable: could not connect to 127.0.0.2:${feeds.port}`);
      const moved = await failing({ epss_url: feeds.url('/moved'), kev_url: feeds.url('/missing.json') });
      expect(moved.epss.error).to.contain('HTTP 302');
      expect(moved.kev.error).to.contain('HTTP 404');
      await kept();
    });
  });

  describe('the schedule', () => {
    it('fetches once enabled, in one replica, and is due again after the interval', async function () {
      this.timeout(30000);
      await settle({
        epss_url: feeds.put('/epss.csv.gz', epssCsv(epssRows(0.91234)), true),
        kev_url: feeds.put('/kev-scheduled.json', kevJson(kevEntries, `sched-${uniqueSuffix()}`)),
      });
      const saved = ok(await t.admin.put('/api/v1/intel/settings', { enabled: true, interval_hours: 1 }));
      expect(saved).to.include({ enabled: true, interval_hours: 1 });
      const deadline = Date.now() + 20000;
      for (;;) {
        const status = ok(await t.admin.get('/api/v1/intel/status'));
        const kev = (status.feeds as Json[]).find((f) => f.feed === 'kev');
        if (String(kev.version).startsWith('sched-') && kev.origin === 'fetch') {
          expect(Date.parse(status.settings.next_run_at)).to.be.greaterThan(Date.now() + 50 * 60000);
          break;
        }
        if (Date.now() > deadline) throw new Error(`not fetched on the schedule: ${JSON.stringify(status)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect((await byCve()).get(alias)).to.include({ known_exploited: true, epss: 0.5 });
      ok(await t.admin.put('/api/v1/intel/settings', { enabled: false }));
    });
  });

  describe('the risk score', () => {
    const scoreOf = (f: Json) => Math.round(100 * f.impact * f.likelihood * f.criticality_weight);

    it('is explained by its factors, weighs the project\u2019s criticality, filters and sorts', async function () {
      this.timeout(30000);
      const before = await byCve();
      for (const issue of before.values()) expect(issue.risk_score, issue.cve).to.equal(scoreOf(issue.risk_factors));
      expect(before.get(inBoth).risk_factors).to.deep.include({
        impact: 0.8,
        impact_from: 'severity',
        likelihood: 1,
        likelihood_from: 'kev',
        criticality: 'medium',
        criticality_weight: 0.8,
      });
      expect(before.get(inBoth).risk_score).to.equal(64);
      expect(before.get(epssOnly).risk_factors).to.include({ likelihood_from: 'epss' });

      ok(await t.admin.put(`/api/v1/project/${P.code}`, { criticality: 'critical' }));
      expect(ok(await t.admin.get(`/api/v1/project/${P.code}`)).criticality).to.equal('critical');
      const deadline = Date.now() + 20000;
      while ((await byCve()).get(inBoth).risk_score !== 80) {
        if (Date.now() > deadline) throw new Error('the project\u2019s criticality did not reach its issues');
        await new Promise((r) => setTimeout(r, 200));
      }
      const after = await byCve();
      expect(after.get(inBoth).risk_factors).to.include({ criticality: 'critical', criticality_weight: 1 });

      const list = (q: string) =>
        t.admin.get(`/api/v1/issues?limit=1000&filter[project_code]=${P.code}&${q}`).then((r) => ok(r).items as Json[]);
      const sorted = await list('sort=-risk_score');
      const scores = sorted.map((i) => i.risk_score as number);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      expect(scores[0]).to.equal(80);
      expect((await list('filter[risk_min]=70')).map((i) => i.risk_score)).to.deep.equal(scores.filter((n) => n >= 70));
      const page = ok(await t.admin.get(`/api/v1/issues?limit=2&filter[project_code]=${P.code}&sort=-risk_score`));
      const next = ok(
        await t.admin.get(
          `/api/v1/issues?limit=2&filter[project_code]=${P.code}&sort=-risk_score&cursor=${page.next_cursor}`,
        ),
      );
      expect([...page.items, ...next.items].map((i: Json) => i.id)).to.deep.equal(sorted.slice(0, 4).map((i) => i.id));
      fieldProblem(await t.admin.get('/api/v1/issues?filter[risk_min]=101'), 'filter[risk_min]');
      fieldProblem(await t.admin.put(`/api/v1/project/${P.code}`, { criticality: 'extreme' }), 'criticality');
    });

    it('has gate conditions on known exploited issues, EPSS and risk score, their thresholds checked', async () => {
      const gate = ok(await t.admin.post('/api/v1/quality-gate', { name: `exploits ${uniqueSuffix()}` })).id;
      const condition = (type: string, value: string) =>
        t.admin.post('/api/v1/condition', {
          quality_gate_id: gate,
          condition_type: type,
          condition_value: value,
          operator: 'equal',
          value: 0,
        });
      ok(await condition('known_exploited', ''));
      ok(await condition('epss', '0.5'));
      ok(await condition('risk_score', '70'));
      expect(fieldProblem(await condition('epss', '2'), 'condition_value')).to.equal('must be a number from 0 to 1');
      expect(fieldProblem(await condition('risk_score', 'high'), 'condition_value')).to.equal(
        'must be a number from 0 to 100',
      );
    });
  });
}
