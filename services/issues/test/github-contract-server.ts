import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv, { type ValidateFunction } from 'ajv';

/**
 * A contract server for the GitHub REST endpoints pull request decoration calls: list, create and
 * update issue comments, create a commit status, list and create pull request review comments. Not
 * GitHub: each request body is checked against GitHub's published OpenAPI description (the npm
 * package `@octokit/openapi`), with no property the description does not name; a body that does not
 * conform is answered 422 as GitHub does and recorded. Answers carry the fields the client reads.
 */

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> } }>>;
}

export interface StoredComment {
  id: number;
  body: string;
  path?: string;
  line?: number;
}

export interface GitHubContractServer {
  url: string;
  token: string;
  issueComments: Map<number, StoredComment[]>;
  reviewComments: Map<number, StoredComment[]>;
  statuses: { sha: string; state: string; context: string; description?: string; target_url?: string }[];
  /** Each request as `METHOD path`, in order. */
  requests: string[];
  /** Bodies that broke GitHub's schema: what the client must never send. */
  violations: string[];
  /** While set, every request is answered 503, as an unavailable GitHub does. */
  refusing: boolean;
  /** The changed lines of the pull request's diff, `path:line`; review comments elsewhere are refused. */
  diffLines: Set<string>;
  close(): Promise<void>;
}

const ROUTES: { method: string; template: string; pattern: RegExp }[] = [
  ['GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}'],
  ['POST', '/repos/{owner}/{repo}/statuses/{sha}'],
  ['GET', '/repos/{owner}/{repo}/pulls/{pull_number}/comments'],
  ['POST', '/repos/{owner}/{repo}/pulls/{pull_number}/comments'],
].map(([method, template]) => ({
  method,
  template,
  pattern: new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '([^/]+)')}$`),
}));

function bodyValidators(): Map<string, ValidateFunction> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- 13 MB of JSON, read once per run
  const spec = require('@octokit/openapi/generated/api.github.com.json') as OpenApi;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  for (const r of ROUTES) {
    const schema = spec.paths[r.template]?.[r.method.toLowerCase()]?.requestBody?.content['application/json']?.schema;
    if (!schema) continue;
    // GitHub's descriptions leave additionalProperties open; a property it does not name is a client bug here.
    validators.set(`${r.method} ${r.template}`, ajv.compile({ ...schema, additionalProperties: false }));
  }
  return validators;
}

export async function startGitHubContractServer(token = 'ghp_contract_token'): Promise<GitHubContractServer> {
  const validators = bodyValidators();
  let nextId = 1000;
  const state: Omit<GitHubContractServer, 'url' | 'close'> = {
    token,
    issueComments: new Map(),
    reviewComments: new Map(),
    statuses: [],
    requests: [],
    violations: [],
    refusing: false,
    diffLines: new Set(),
  };
  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const page = (res: http.ServerResponse, url: URL, items: StoredComment[]) => {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const n = Number(url.searchParams.get('page') ?? 1);
    if (n * perPage < items.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(n + 1));
      res.setHeader('link', `<${next.toString()}>; rel="next"`);
    }
    answer(res, 200, items.slice((n - 1) * perPage, n * perPage));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      state.requests.push(`${req.method} ${url.pathname}`);
      if (state.refusing) return answer(res, 503, { message: 'Service Unavailable' });
      if (req.headers.authorization !== `token ${token}` && req.headers.authorization !== `Bearer ${token}`)
        return answer(res, 401, { message: 'Bad credentials' });
      const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(url.pathname));
      if (!route) return answer(res, 404, { message: 'Not Found' });
      const number = Number(route.pattern.exec(url.pathname)?.[3]);
      let body: Record<string, unknown> = {};
      if (req.method !== 'GET') {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          return answer(res, 400, { message: 'Problems parsing JSON' });
        }
        const validate = validators.get(`${route.method} ${route.template}`);
        if (!validate || !validate(body)) {
          state.violations.push(
            `${route.method} ${route.template}: ${JSON.stringify(validate?.errors ?? 'no schema')}`,
          );
          return answer(res, 422, { message: 'Invalid request.', errors: validate?.errors });
        }
      }
      const listOf = (m: Map<number, StoredComment[]>) => m.get(number) ?? m.set(number, []).get(number)!;
      switch (`${route.method} ${route.template}`) {
        case 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments':
          return page(res, url, listOf(state.issueComments));
        case 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': {
          const comment = { id: nextId++, body: String(body.body) };
          listOf(state.issueComments).push(comment);
          return answer(res, 201, comment);
        }
        case 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': {
          const comment = [...state.issueComments.values()].flat().find((c) => c.id === number);
          if (!comment) return answer(res, 404, { message: 'Not Found' });
          comment.body = String(body.body);
          return answer(res, 200, comment);
        }
        case 'POST /repos/{owner}/{repo}/statuses/{sha}':
          state.statuses.push({ sha: url.pathname.split('/')[5], ...(body as { state: string; context: string }) });
          return answer(res, 201, { id: nextId++, state: body.state });
        case 'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments':
          return page(res, url, listOf(state.reviewComments));
        default: {
          if (!state.diffLines.has(`${String(body.path)}:${String(body.line)}`))
            return answer(res, 422, { message: 'Validation Failed', errors: ['line must be part of the diff'] });
          const comment = { id: nextId++, body: String(body.body), path: String(body.path), line: Number(body.line) };
          listOf(state.reviewComments).push(comment);
          return answer(res, 201, comment);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
