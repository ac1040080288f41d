import http from 'node:http';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { ADMIN_PASSWORD, type SystemUnderTest } from '@bulwark/testkit';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire, not decoded. */
  body: Buffer;
}

/** A GET through node:http, which (unlike fetch) neither asks for nor undoes a content encoding. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Responses compressed when the client asks, plain when it does not; downloads pass as they stream. */
export function compressionSuite(t: SystemUnderTest): void {
  let auth: Record<string, string>;
  const base = () => t.admin.baseUrl;
  before(async () => {
    auth = { authorization: `Bearer ${await t.anon.login('admin', ADMIN_PASSWORD)}` };
  });

  it('gzips an API answer in JSON when the request accepts gzip, and sends it plain when it does not', async () => {
    const zipped = await rawGet(base(), '/api/v1/permissions', { ...auth, 'accept-encoding': 'gzip' });
    expect(zipped.status).to.equal(200);
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers.vary).to.match(/accept-encoding/i);
    const json = JSON.parse(zlib.gunzipSync(zipped.body).toString('utf8')) as { keys: unknown[] };
    expect(json.keys.length).to.be.greaterThan(0);

    const plain = await rawGet(base(), '/api/v1/permissions', { ...auth, 'accept-encoding': 'identity' });
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(plain.body.toString('utf8'))).to.deep.equal(json);
    expect(zipped.body.length).to.be.lessThan(plain.body.length);

    const none = await rawGet(base(), '/api/v1/permissions', auth);
    expect(none.headers['content-encoding']).to.equal(undefined);
  });

  it('answers brotli when the request prefers it', async () => {
    const res = await rawGet(base(), '/api/v1/permissions', { ...auth, 'accept-encoding': 'br;q=1, gzip;q=0.5' });
    expect(res.headers['content-encoding']).to.equal('br');
    expect(JSON.parse(zlib.brotliDecompressSync(res.body).toString('utf8'))).to.have.property('keys');
  });

  it('passes a download on uncompressed and streamed, even when the request accepts gzip', async () => {
    const res = await rawGet(base(), '/api/v1/errors-log/csv', { ...auth, 'accept-encoding': 'gzip, br' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-disposition']).to.match(/^attachment/);
    expect(res.headers['content-encoding']).to.equal(undefined);
    // Streamed by the service page by page: chunked, never gathered to learn its length.
    expect(res.headers['transfer-encoding']).to.equal('chunked');
    expect(res.headers['content-length']).to.equal(undefined);
    expect(res.body.toString('utf8').split('\n')[0]).to.match(/^\uFEFF?"?[a-z_]+"?,/i);
  });

  it('compresses the console’s entry script for a browser, keeping its caching', async () => {
    // The page itself is under compression's 1 kB threshold, so it goes as it is.
    const page = await rawGet(base(), '/', { 'accept-encoding': 'identity' });
    const entry = /src="(\/assets\/[^"]+\.js)"/.exec(page.body.toString('utf8'))?.[1] ?? '';
    expect(entry).to.match(/^\/assets\//);
    const plain = await rawGet(base(), entry, {});
    const br = await rawGet(base(), entry, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).to.equal('br');
    expect(br.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).to.equal(true);
    const gzip = await rawGet(base(), entry, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(zlib.gunzipSync(gzip.body).equals(plain.body)).to.equal(true);
    expect(gzip.body.length).to.be.lessThan(plain.body.length);
    // The console's budget: its entry script at most 90 kB on the wire, in either encoding.
    expect(br.body.length).to.be.at.most(90 * 1024);
    expect(gzip.body.length).to.be.at.most(90 * 1024);
  });
}
