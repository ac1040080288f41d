/**
 * Generated clients (README "Generated clients"): starts TARGET=all, takes the client document it
 * serves, generates a Python client (openapi-python-client, from the venv named by API_CLIENTS_VENV)
 * and a TypeScript one (openapi-typescript types for openapi-fetch), failing on any generator
 * warning; type-checks and lints the TypeScript set-up order against its types; runs the guide's
 * set-up order through each client; validates every response of both runs against the schema the
 * document declares for it; and lints both documents with Redocly's recommended rules (0 errors).
 * The clients and the documents are left in api-clients/gen/ (ignored by git).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_PASSWORD, startAllModeProcess } from '@bulwark/testkit';
import { type Exchange, typescriptSetupOrder } from './setup-order';
import { invalidExchanges } from './validate';

const root = path.resolve(__dirname, '..');
const gen = path.join(__dirname, 'gen');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

/** Runs a tool to completion; its output, or a failure with it. */
function run(what: string, command: string, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`;
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}):\n${output}`);
  return output;
}

/** A generator's output must say nothing but that it generated. */
function refuseWarnings(what: string, output: string): void {
  if (/warn|error|skipping|unsupported/i.test(output)) throw new Error(`${what} warned:\n${output}`);
}

const SEMGREP_REPORT = {
  version: '1.100.0',
  errors: [],
  paths: { scanned: ['app.py'] },
  results: [
    {
      check_id: 'python.lang.security.eval',
      path: 'app.py',
      start: { line: 9, col: 1, offset: 90 },
      end: { line: 9, col: 30, offset: 119 },
      extra: { message: 'eval of input', severity: 'ERROR', lines: 'eval(data)', metadata: { cwe: ['CWE-95'] } },
    },
  ],
};

async function main(): Promise<void> {
  const venv = process.env.API_CLIENTS_VENV;
  if (!venv) throw new Error('API_CLIENTS_VENV names the venv of openapi-python-client (api-clients/run.sh sets it)');
  fs.rmSync(gen, { recursive: true, force: true });
  fs.mkdirSync(path.join(gen, 'typescript'), { recursive: true });
  const started = Date.now();
  const sys = await startAllModeProcess({ LOG_LEVEL: 'warn' });
  try {
    const base = sys.api.baseUrl;
    const served = async (file: string) => {
      const text = await (await fetch(`${base}/api/v1/swagger/${file}`)).text();
      fs.writeFileSync(path.join(gen, file), text);
      return JSON.parse(text) as Parameters<typeof invalidExchanges>[0];
    };
    const doc = await served('client.json');
    await served('doc.json');

    refuseWarnings(
      'openapi-python-client',
      run('openapi-python-client', path.join(venv, 'bin', 'openapi-python-client'), [
        'generate',
        ...[
          '--path',
          'api-clients/gen/client.json',
          '--output-path',
          'api-clients/gen/python/bulwark_api_client',
          '--meta',
          'none',
        ],
        ...['--config', 'api-clients/python-client.yaml'],
      ]),
    );
    refuseWarnings(
      'openapi-typescript',
      run('openapi-typescript', bin('openapi-typescript'), [
        'api-clients/gen/client.json',
        ...['-o', 'api-clients/gen/typescript/api.d.ts'],
        // A field with a default may be left out of a request: typed optional, not required.
        ...['--default-non-nullable', 'false'],
      ]),
    );
    run('the type check of the TypeScript set-up order', bin('tsc'), ['-p', 'api-clients/tsconfig.json']);
    // Ignored by the project's lint, which runs before the types it is checked against exist.
    run('the lint of the TypeScript set-up order', bin('eslint'), [
      ...['--no-ignore', '--max-warnings=0', 'api-clients/setup-order.ts'],
    ]);
    const lint = ['client.json', 'doc.json'].map((file) =>
      run(`Redocly's lint of ${file}`, bin('redocly'), [
        ...['lint', `api-clients/gen/${file}`, '--extends', 'recommended', '--format', 'summary'],
      ]),
    );

    const exchanges: Exchange[] = [];
    const typescript = await typescriptSetupOrder(base, ADMIN_PASSWORD, SEMGREP_REPORT, exchanges);
    const reportFile = path.join(gen, 'semgrep.json');
    fs.writeFileSync(reportFile, JSON.stringify(SEMGREP_REPORT));
    const pythonExchanges = path.join(gen, 'exchanges-python.jsonl');
    const python = run(
      'the Python set-up order',
      path.join(venv, 'bin', 'python'),
      ['api-clients/setup_order.py', base, ADMIN_PASSWORD, pythonExchanges, reportFile],
      { PYTHONPATH: path.join(gen, 'python') },
    ).trim();
    for (const line of fs.readFileSync(pythonExchanges, 'utf8').split('\n').filter(Boolean))
      exchanges.push(JSON.parse(line) as Exchange);

    const invalid = invalidExchanges(doc, exchanges);
    const warnings = lint.map((output) => /You have (\d+) warnings?/.exec(output)?.[1] ?? '0');
    console.log(typescript);
    console.log(python);
    console.log(
      `api-clients: both clients generated without warnings, ${exchanges.length} responses checked against the document, ` +
        `${invalid.length} not conforming; Redocly recommended: 0 errors, ${warnings[0]} warnings (client.json), ` +
        `${warnings[1]} (doc.json); ${Math.round((Date.now() - started) / 1000)} s`,
    );
    if (invalid.length > 0) throw new Error(`responses that do not conform to the document:\n${invalid.join('\n')}`);
  } finally {
    await sys.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`api-clients: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
