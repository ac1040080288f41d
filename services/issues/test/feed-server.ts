import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export interface EpssRow {
  cve: string;
  epss: number;
  percentile: number;
}
export interface KevEntry {
  cve: string;
  dueDate: string;
}

/** An EPSS daily file as FIRST publishes it: the model and score date line, the header, one CVE a line. */
export function epssCsv(rows: EpssRow[], scoreDate = '2026-11-27T12:55:00+0000'): string {
  return [
    `#model_version:v2025.03.14,score_date:${scoreDate}`,
    'cve,epss,percentile',
    ...rows.map((r) => `${r.cve},${r.epss.toFixed(5)},${r.percentile.toFixed(5)}`),
    '',
  ].join('\n');
}

/** The CISA KEV catalog as published (the fields of its schema, Bulwark reads four of them). */
export function kevJson(entries: KevEntry[], catalogVersion = '2026.11.27'): string {
  return JSON.stringify({
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion,
    dateReleased: '2026-11-27T17:01:26.1227Z',
    count: entries.length,
    vulnerabilities: entries.map((e) => ({
      cveID: e.cve,
      vendorProject: 'Example',
      product: 'Product',
      vulnerabilityName: `Example vulnerability ${e.cve}`,
      dateAdded: '2026-10-01',
      shortDescription: 'Remote code execution.',
      requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product.',
      dueDate: e.dueDate,
      knownRansomwareCampaignUse: 'Known',
      notes: '',
      cwes: ['CWE-78'],
    })),
  });
}

/** Filler CVEs a real feed surrounds the ones of a test with. */
export function fillerCves(count: number, year = 2019): string[] {
  return Array.from({ length: count }, (_, i) => `CVE-${year}-${String(100000 + i)}`);
}

/**
 * A feed server on 127.0.0.1 the tests start: each path answers what the test put there (bytes), or
 * hangs without answering (`hang`), or redirects. The tests' system reaches it (the outbound policy
 * of the test systems allows 127.0.0.1 and nothing else of this host).
 */
export class FeedServer {
  private readonly files = new Map<string, Buffer>();
  private readonly hanging = new Set<http.ServerResponse>();
  private server?: http.Server;
  port = 0;

  put(path: string, body: string | Buffer, gzip = false): string {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    this.files.set(path, gzip ? zlib.gzipSync(bytes) : bytes);
    return this.url(path);
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/hang') {
        this.hanging.add(res);
        return;
      }
      if (path === '/moved') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
        return;
      }
      const file = this.files.get(path);
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length }).end(file);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
