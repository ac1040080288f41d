import { randomUUID } from 'node:crypto';
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './gen/typescript/api';

/** One response a client received, for validation against the document. */
export interface Exchange {
  client: string;
  method: string;
  path: string;
  status: number;
  content_type: string;
  /** The text of a JSON or text body; base64 of any other. */
  body: string;
}

function recorder(exchanges: Exchange[]): Middleware {
  return {
    async onResponse({ request, response }) {
      const contentType = response.headers.get('content-type') ?? '';
      const bytes = Buffer.from(await response.clone().arrayBuffer());
      const text = /^(application\/json|text\/)|\+json/.test(contentType);
      exchanges.push({
        client: 'typescript',
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        content_type: contentType,
        body: text ? bytes.toString('utf8') : bytes.toString('base64'),
      });
      return undefined;
    },
  };
}

/** What a call answered, or a failure naming its status and body. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined)
    throw new Error(`${result.response.status} ${result.response.url}: ${JSON.stringify(result.error)}`);
  return result.data;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 120 s: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The API guide's set-up order through openapi-fetch typed by openapi-typescript's types of the
 * served document: login, source, tool, project, layer, check; a report uploaded as JSON and its
 * scan result polled; the issues listed; a report created, polled and downloaded as JSON and PDF.
 */
export async function typescriptSetupOrder(
  baseUrl: string,
  password: string,
  report: Record<string, unknown>,
  exchanges: Exchange[],
): Promise<string> {
  const anonymous = createClient<paths>({ baseUrl });
  anonymous.use(recorder(exchanges));
  const login = ok(await anonymous.POST('/api/v1/auth/login', { body: { username: 'admin', password } }));
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${login.access_token}` } });
  client.use(recorder(exchanges));

  const code = `ts${randomUUID().slice(0, 6)}`;
  const source = ok(
    await client.POST('/api/v1/source', {
      body: {
        name: `repository ${code}`,
        description: 'typescript client',
        source_type_id: 1,
        settings: { url: 'https://git.example.com/app.git', branch_name: 'main', auth_method: 'Anonymous' },
      },
    }),
  );
  const tool = ok(
    await client.POST('/api/v1/tool', {
      body: { description: `uploads ${code}`, type_id: 20, settings: { scan_result_lang: 'EN' } },
    }),
  );
  ok(
    await client.POST('/api/v1/project', {
      body: { code, name: `Project ${code}`, description: 'typescript client', tags: ['clients'] },
    }),
  );
  const layer = ok(
    await client.POST('/api/v1/layer', {
      body: { name: 'code', description: 'code', project_code: code, layer_type_id: 1, is_template: false },
    }),
  );
  const check = ok(
    await client.POST('/api/v1/check', {
      body: {
        layer_id: layer.id,
        security_tool_id: tool.id,
        scan_source_id: source.id,
        source_auth: { branch_name: 'main' },
        run_scan_task: { type: 'manual' },
      },
    }),
  );

  const uploaded = ok(
    await client.POST('/api/v1/check/{check_id}/results', { params: { path: { check_id: check.id } }, body: report }),
  );
  // The answer is the scan, or a dry run's outcome when ?dry_run=true was sent (not here).
  if ('dry_run' in uploaded) throw new Error('an upload without dry_run answered as a dry run');
  const run = uploaded;
  const scan = await until(
    'the scan\u2019s completion',
    async () =>
      ok(await client.GET('/api/v1/scan-result/{result_id}', { params: { path: { result_id: run.scan_result_id } } })),
    (s) => s.state === 'completed' || s.state === 'failed',
  );
  if (scan.state !== 'completed') throw new Error(`the scan ended ${scan.state}: ${scan.error}`);
  const issues = await until(
    'the issues of the scan',
    async () => ok(await client.GET('/api/v1/issues', { params: { query: { 'filter[scan]': run.scan_result_id } } })),
    (page) => page.total >= 1,
  );

  const created = ok(
    await client.POST('/api/v1/report', {
      body: { name: `Report ${code}`, type: 'summary', filter: { project_code: [code] } },
    }),
  );
  await until(
    'the report',
    async () => ok(await client.GET('/api/v1/report/{id}', { params: { path: { id: created.id } } })),
    (r) => r.state === 'ready',
  );
  const document = ok(
    await client.GET('/api/v1/report/{id}/download', {
      params: { path: { id: created.id }, query: { format: 'json' } },
    }),
  );
  // The 200 body's type is that of any of its media types; the format asked for says which.
  if (typeof document === 'string' || document.totals.issues < 1)
    throw new Error(`the JSON report reads ${JSON.stringify(document).slice(0, 200)}`);
  const pdf = await client.GET('/api/v1/report/{id}/download', {
    params: { path: { id: created.id }, query: { format: 'pdf' } },
    parseAs: 'arrayBuffer',
  });
  if (!Buffer.from(ok(pdf)).subarray(0, 4).equals(Buffer.from('%PDF')))
    throw new Error('the PDF download is not a PDF');
  return `typescript client: ${issues.total} issues, report ${created.id} downloaded as JSON and PDF`;
}
