import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv from 'ajv';
import { type FormData, Response } from 'undici';

/**
 * A contract server for the GitLab REST endpoints (`/api/v4`) merge request decoration calls: list,
 * create and update merge request notes, read the merge request (its diff refs), list and create
 * discussions, create a commit status. Not GitLab: GitLab publishes no OpenAPI description of these
 * endpoints in any package registry, so each request body is checked against the request shapes of
 * GitLab's API documentation (the parameters of each endpoint, with their types and required ones)
 * as gitbeaker's types (`@gitbeaker/core`) also define them, with no parameter those do not name. A
 * body that does not conform is answered 400 as GitLab does and recorded.
 */

export interface StoredNote {
  id: number;
  body: string;
}

export interface StoredDiscussion {
  id: string;
  notes: StoredNote[];
  position?: Record<string, string>;
}

export interface GitLabContractServer {
  /** The API address as a source's decoration names it (`…/api/v4`). */
  url: string;
  token: string;
  notes: Map<number, StoredNote[]>;
  discussions: Map<number, StoredDiscussion[]>;
  statuses: { sha: string; state: string; name?: string; description?: string; target_url?: string }[];
  /** Each request as `METHOD path`, in order. */
  requests: string[];
  /** Bodies that broke the documented request shape: what the client must never send. */
  violations: string[];
  /** While set, every request is answered 503, as an unavailable GitLab does. */
  refusing: boolean;
  /** The merge request's diff refs; the head is the last pushed commit. */
  diffRefs: { base_sha: string; start_sha: string; head_sha: string };
  /** The changed lines of the merge request's diff, `path:line`; a discussion elsewhere is refused. */
  diffLines: Set<string>;
  close(): Promise<void>;
}

const SHA = { type: 'string', pattern: '^[0-9a-f]{40}$' };
const NOTE_BODY = { type: 'string', minLength: 1, maxLength: 1_000_000 };
const strict = (properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Each endpoint's body as GitLab's API documentation gives its parameters. */
const ROUTES: { method: string; template: string; body?: object }[] = [
  { method: 'GET', template: '/projects/{id}/merge_requests/{iid}/notes' },
  {
    method: 'POST',
    template: '/projects/{id}/merge_requests/{iid}/notes',
    body: strict(
      {
        body: NOTE_BODY,
        internal: { type: 'boolean' },
        created_at: { type: 'string' },
        merge_request_diff_head_sha: SHA,
      },
      ['body'],
    ),
  },
  {
    method: 'PUT',
    template: '/projects/{id}/merge_requests/{iid}/notes/{note_id}',
    body: strict({ body: NOTE_BODY }, ['body']),
  },
  { method: 'GET', template: '/projects/{id}/merge_requests/{iid}' },
  { method: 'GET', template: '/projects/{id}/merge_requests/{iid}/discussions' },
  {
    method: 'POST',
    template: '/projects/{id}/merge_requests/{iid}/discussions',
    body: strict(
      {
        body: NOTE_BODY,
        commit_id: SHA,
        created_at: { type: 'string' },
        position: strict(
          {
            base_sha: SHA,
            start_sha: SHA,
            head_sha: SHA,
            position_type: { enum: ['text', 'image', 'file'] },
            new_path: { type: 'string', minLength: 1 },
            old_path: { type: 'string', minLength: 1 },
            new_line: { type: 'integer', minimum: 1 },
            old_line: { type: 'integer', minimum: 1 },
          },
          ['base_sha', 'start_sha', 'head_sha', 'position_type'],
        ),
      },
      ['body'],
    ),
  },
  {
    method: 'POST',
    template: '/projects/{id}/statuses/{sha}',
    body: strict(
      {
        state: { enum: ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] },
        ref: { type: 'string' },
        name: { type: 'string', maxLength: 255 },
        context: { type: 'string', maxLength: 255 },
        target_url: { type: 'string', maxLength: 255, pattern: '^https?://' },
        description: { type: 'string', maxLength: 255 },
        coverage: { type: 'number' },
        pipeline_id: { type: 'integer' },
      },
      ['state'],
    ),
  },
];

const PREFIX = '/api/v4';
const patternOf = (template: string) => new RegExp(`^${PREFIX}${template.replace(/\{[a-z_]+\}/g, '([^/]+)')}$`);

/** A multipart form as GitLab reads it: `position[base_sha]` is `position.base_sha`, numbers from their digits. */
function formObject(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    const text = typeof value === 'string' ? value : value.name;
    const typed = /^\d+$/.test(text) && /_line\]?$/.test(key) ? Number(text) : text;
    const nested = /^([a-z_]+)\[([a-z_]+)\]$/.exec(key);
    if (nested) {
      const inner = (out[nested[1]] ??= {}) as Record<string, unknown>;
      inner[nested[2]] = typed;
    } else out[key] = typed;
  }
  return out;
}

async function bodyOf(req: http.IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data'))
    return formObject(await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData());
  return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
}

export async function startGitLabContractServer(
  project = 'group/sub/shop',
  token = 'glpat-contract-token',
): Promise<GitLabContractServer> {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const routes = ROUTES.map((r) => ({
    ...r,
    pattern: patternOf(r.template),
    validate: r.body ? ajv.compile(r.body) : undefined,
  }));
  let nextId = 5000;
  const state: Omit<GitLabContractServer, 'url' | 'close'> = {
    token,
    notes: new Map(),
    discussions: new Map(),
    statuses: [],
    requests: [],
    violations: [],
    refusing: false,
    diffRefs: { base_sha: 'b'.repeat(40), start_sha: 'b'.repeat(40), head_sha: 'a'.repeat(40) },
    diffLines: new Set(),
  };
  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  /** GitLab's offset pagination: `page` and `per_page`, the next page in `x-next-page` and `link`. */
  const paged = <T>(res: http.ServerResponse, url: URL, items: T[]) => {
    const perPage = Number(url.searchParams.get('per_page') ?? 20);
    const n = Number(url.searchParams.get('page') ?? 1);
    if (n * perPage < items.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(n + 1));
      res.setHeader('x-next-page', String(n + 1));
      res.setHeader('link', `<${next.toString()}>; rel="next"`);
    }
    answer(res, 200, items.slice((n - 1) * perPage, n * perPage));
  };
  const listOf = <T>(m: Map<number, T[]>, iid: number) => {
    const list = m.get(iid) ?? [];
    m.set(iid, list);
    return list;
  };

  const handle = async (req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    state.requests.push(`${req.method} ${url.pathname}`);
    if (state.refusing) return answer(res, 503, { message: '503 Service Unavailable' });
    if (req.headers.authorization !== `Bearer ${token}` && req.headers['private-token'] !== token)
      return answer(res, 401, { message: '401 Unauthorized' });
    const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (!route) return answer(res, 404, { message: '404 Not Found' });
    const [, projectId, second] = route.pattern.exec(url.pathname) ?? [];
    if (decodeURIComponent(projectId) !== project) return answer(res, 404, { message: '404 Project Not Found' });
    let body: Record<string, unknown> = {};
    if (route.validate) {
      try {
        body = await bodyOf(req, raw);
      } catch {
        return answer(res, 400, { error: 'the body could not be read' });
      }
      if (!route.validate(body)) {
        state.violations.push(`${route.method} ${route.template}: ${JSON.stringify(route.validate.errors)}`);
        return answer(res, 400, { error: JSON.stringify(route.validate.errors) });
      }
    }
    const iid = Number(second);
    switch (`${route.method} ${route.template}`) {
      case 'GET /projects/{id}/merge_requests/{iid}/notes':
        return paged(res, url, listOf(state.notes, iid));
      case 'POST /projects/{id}/merge_requests/{iid}/notes': {
        const note = { id: nextId++, body: String(body.body) };
        listOf(state.notes, iid).push(note);
        return answer(res, 201, note);
      }
      case 'PUT /projects/{id}/merge_requests/{iid}/notes/{note_id}': {
        const noteId = Number(url.pathname.split('/').at(-1));
        const note = listOf(state.notes, iid).find((n) => n.id === noteId);
        if (!note) return answer(res, 404, { message: '404 Note Not Found' });
        note.body = String(body.body);
        return answer(res, 200, note);
      }
      case 'GET /projects/{id}/merge_requests/{iid}':
        return answer(res, 200, { iid, state: 'opened', diff_refs: state.diffRefs });
      case 'GET /projects/{id}/merge_requests/{iid}/discussions':
        return paged(res, url, listOf(state.discussions, iid));
      case 'POST /projects/{id}/merge_requests/{iid}/discussions': {
        const position = body.position as Record<string, string> | undefined;
        const refs = state.diffRefs;
        const onDiff =
          position &&
          position.base_sha === refs.base_sha &&
          position.start_sha === refs.start_sha &&
          position.head_sha === refs.head_sha &&
          state.diffLines.has(`${position.new_path}:${position.new_line}`);
        if (position && !onDiff)
          return answer(res, 400, { message: `400 Bad request - Note {:line_code=>["can't be blank"]}` });
        const discussion = { id: String(nextId++), notes: [{ id: nextId++, body: String(body.body) }], position };
        listOf(state.discussions, iid).push(discussion);
        return answer(res, 201, discussion);
      }
      default: {
        const sha = decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
        state.statuses.push({ sha, ...(body as { state: string }) });
        return answer(res, 201, { id: nextId++, sha, status: body.state });
      }
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks), res).catch((err: Error) => answer(res, 500, { message: err.message }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}${PREFIX}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
