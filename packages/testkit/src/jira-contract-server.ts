import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { present } from '@bulwark/platform';

/**
 * A contract test server for Jira's REST API, versions 2 and 3, written from the request and answer
 * shapes Atlassian publishes for the operations Bulwark calls: create issue (POST /issue), get issue
 * (GET /issue/{key}), transitions (GET and POST /issue/{key}/transitions), add comment (POST
 * /issue/{key}/comment) and JQL search (v2 POST /search, v3 POST /search/jql). It is not Jira: it
 * checks what Jira checks for these calls (authentication, required fields, v3's Atlassian Document
 * Format bodies against v2's plain text, valid transitions, the JQL Bulwark sends) and answers with
 * Jira's status codes and error shape `{ errorMessages, errors }`.
 */

interface StatusSpec {
  id: string;
  name: string;
  category: 'new' | 'indeterminate' | 'done';
}

const STATUSES: StatusSpec[] = [
  { id: '10000', name: 'To Do', category: 'new' },
  { id: '3', name: 'In Progress', category: 'indeterminate' },
  { id: '10001', name: 'Done', category: 'done' },
];
/** A global transition to every status, as a simplified Jira Software workflow has. */
const TRANSITIONS = [
  { id: '11', name: 'To Do', to: '10000' },
  { id: '21', name: 'In Progress', to: '3' },
  { id: '31', name: 'Done', to: '10001' },
];

export interface JiraIssueRecord {
  id: string;
  key: string;
  project: string;
  issueType: string;
  summary: string;
  /** As sent: a string (v2) or an Atlassian Document (v3). */
  description: unknown;
  labels: string[];
  statusId: string;
  comments: { id: string; body: unknown; version: number }[];
}

export interface JiraContractServer {
  url: string;
  issues: Map<string, JiraIssueRecord>;
  /** Every request as `METHOD path` with its API version, in order. */
  requests: { method: string; path: string; version: number }[];
  /** What a person does in Jira: moves an issue to a status by name. */
  setStatus(key: string, statusName: string): void;
  statusOf(key: string): string;
  /** Plain text of a comment body, v2 string or v3 document. */
  commentTexts(key: string): string[];
  close(): Promise<void>;
}

const ERR = (errorMessages: string[], errors: Record<string, string> = {}) => ({ errorMessages, errors });

/** True when `doc` is an Atlassian Document: { type: 'doc', version: 1, content: [...] } of typed nodes. */
function isAdf(doc: unknown): boolean {
  const node = (n: unknown): boolean => {
    if (!n || typeof n !== 'object') return false;
    const o = n as { type?: unknown; content?: unknown; text?: unknown };
    if (typeof o.type !== 'string') return false;
    if (o.type === 'text') return typeof o.text === 'string' && o.text.length > 0;
    return o.content === undefined || (Array.isArray(o.content) && o.content.every(node));
  };
  const d = doc as { type?: unknown; version?: unknown; content?: unknown };
  return (
    !!d &&
    typeof d === 'object' &&
    d.type === 'doc' &&
    d.version === 1 &&
    Array.isArray(d.content) &&
    d.content.every(node)
  );
}

function adfText(doc: unknown): string {
  const walk = (n: unknown): string => {
    const o = n as { text?: string; content?: unknown[] };
    return typeof o.text === 'string'
      ? o.text
      : (o.content ?? []).map(walk).join(o.content && (n as { type?: string }).type === 'doc' ? '\n\n' : '');
  };
  return walk(doc);
}

export async function startJiraContractServer(o: {
  projects: string[];
  issueTypes: string[];
  email: string;
  apiToken: string;
}): Promise<JiraContractServer> {
  const issues = new Map<string, JiraIssueRecord>();
  const requests: JiraContractServer['requests'] = [];
  const counters = new Map<string, number>();
  let nextId = 10000;
  let base = '';
  const expectedAuth = `Basic ${Buffer.from(`${o.email}:${o.apiToken}`).toString('base64')}`;

  const statusView = (id: string) => {
    const s = present(
      STATUSES.find((x) => x.id === id),
      `status ${id}`,
    );
    return {
      self: `${base}/rest/api/3/status/${s.id}`,
      id: s.id,
      name: s.name,
      statusCategory: {
        key: s.category,
        name: s.category === 'new' ? 'To Do' : s.category === 'done' ? 'Done' : 'In Progress',
      },
    };
  };
  const issueView = (i: JiraIssueRecord, version: number, fields: string[] | undefined) => {
    const all: Record<string, unknown> = {
      status: statusView(i.statusId),
      summary: i.summary,
      issuetype: { name: i.issueType },
      project: { key: i.project },
      labels: i.labels,
      description: i.description,
    };
    const chosen =
      fields && fields.length ? Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k))) : all;
    return { id: i.id, key: i.key, self: `${base}/rest/api/${version}/issue/${i.id}`, fields: chosen };
  };
  const find = (key: string) => [...issues.values()].find((i) => i.key === key || i.id === key);

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const send = (status: number, body?: unknown) => {
        res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json;charset=UTF-8' });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', base);
      const m = /^\/rest\/api\/(2|3)\/(.*)$/.exec(url.pathname);
      if (!m) return send(404, ERR(['Not found']));
      const version = Number(m[1]);
      const path = m[2];
      requests.push({ method: req.method ?? '', path: `/${path}`, version });
      const auth = req.headers.authorization ?? '';
      if (auth !== expectedAuth)
        return send(401, ERR(['You are not authenticated. Authentication required to perform this operation.']));
      // Any JSON a client sends: each field is checked before it is used, as Jira does.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      let body: Record<string, any> = {};
      if (req.method === 'POST' || req.method === 'PUT') {
        if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
          return send(415, ERR(['Unsupported Media Type']));
        try {
          body = JSON.parse(raw || '{}');
        } catch {
          return send(400, ERR(['Unexpected character in the request body: not JSON']));
        }
      }
      const richOk = (v: unknown) => (version === 3 ? isAdf(v) : typeof v === 'string');
      const richProblem =
        version === 3
          ? 'Operation value must be an Atlassian Document (see the Atlassian Document Format)'
          : 'Operation value must be a string';

      if (req.method === 'POST' && path === 'issue') {
        const f = body.fields ?? {};
        const errors: Record<string, string> = {};
        if (!o.projects.includes(f.project?.key)) errors.project = 'valid project is required';
        if (!o.issueTypes.includes(f.issuetype?.name)) errors.issuetype = 'valid issue type is required';
        if (typeof f.summary !== 'string' || !f.summary.trim())
          errors.summary = 'You must specify a summary of the issue.';
        else if (f.summary.length > 255) errors.summary = 'Summary must be less than 255 characters.';
        if (f.description !== undefined && !richOk(f.description)) errors.description = richProblem;
        if (
          f.labels !== undefined &&
          (!Array.isArray(f.labels) || f.labels.some((l: unknown) => typeof l !== 'string' || /\s/.test(l)))
        )
          errors.labels = 'The label must not contain spaces.';
        if (Object.keys(errors).length) return send(400, ERR([], errors));
        const n = (counters.get(f.project.key) ?? 0) + 1;
        counters.set(f.project.key, n);
        const issue: JiraIssueRecord = {
          id: String(nextId++),
          key: `${f.project.key}-${n}`,
          project: f.project.key,
          issueType: f.issuetype.name,
          summary: f.summary,
          description: f.description ?? null,
          labels: f.labels ?? [],
          statusId: '10000',
          comments: [],
        };
        issues.set(issue.key, issue);
        return send(201, { id: issue.id, key: issue.key, self: `${base}/rest/api/${version}/issue/${issue.id}` });
      }
      if (req.method === 'POST' && ((version === 2 && path === 'search') || (version === 3 && path === 'search/jql'))) {
        if (typeof body.jql !== 'string') return send(400, ERR(['The JQL query is required.']));
        const q =
          /^\s*key\s+in\s*\(([^)]*)\)\s*$/i.exec(body.jql) ??
          /^\s*key\s*=\s*("?)([A-Z][A-Z0-9_]*-\d+)\1\s*$/i.exec(body.jql);
        if (!q) return send(400, ERR([`Error in the JQL Query: unsupported query ${body.jql}`]));
        const keys = (q.length === 2 ? q[1].split(',') : [q[2]]).map((k) => k.trim().replace(/^"|"$/g, ''));
        const bad = keys.filter((k) => !/^[A-Z][A-Z0-9_]*-\d+$/.test(k));
        if (bad.length) return send(400, ERR([`Error in the JQL Query: '${bad[0]}' is not a valid issue key`]));
        const maxResults = Math.min(Number(body.maxResults ?? 50), 100);
        const found = keys
          .map(find)
          .filter((i): i is JiraIssueRecord => !!i)
          .slice(0, maxResults)
          .map((i) => issueView(i, version, body.fields));
        return send(
          200,
          version === 3
            ? { issues: found, isLast: true }
            : { startAt: 0, maxResults, total: found.length, issues: found },
        );
      }
      const im = /^issue\/([^/]+)(\/transitions|\/comment)?$/.exec(path);
      if (im) {
        const issue = find(decodeURIComponent(im[1]));
        if (!issue) return send(404, ERR(['Issue does not exist or you do not have permission to see it.']));
        if (req.method === 'GET' && !im[2])
          return send(200, issueView(issue, version, url.searchParams.get('fields')?.split(',')));
        if (req.method === 'GET' && im[2] === '/transitions') {
          return send(200, {
            expand: 'transitions',
            transitions: TRANSITIONS.filter((t) => t.to !== issue.statusId).map((t) => ({
              id: t.id,
              name: t.name,
              to: statusView(t.to),
              hasScreen: false,
              isGlobal: true,
              isInitial: false,
              isAvailable: true,
              isConditional: false,
              isLooped: false,
            })),
          });
        }
        if (req.method === 'POST' && im[2] === '/transitions') {
          const t = TRANSITIONS.find((x) => x.id === String(body.transition?.id ?? ''));
          if (!t || t.to === issue.statusId)
            return send(400, ERR([`Transition id '${body.transition?.id}' is not valid for this issue.`]));
          issue.statusId = t.to;
          return send(204);
        }
        if (req.method === 'POST' && im[2] === '/comment') {
          if (!richOk(body.body)) return send(400, ERR([], { comment: richProblem }));
          const c = { id: String(nextId++), body: body.body, version };
          issue.comments.push(c);
          return send(201, {
            id: c.id,
            self: `${base}/rest/api/${version}/issue/${issue.id}/comment/${c.id}`,
            body: c.body,
            created: new Date().toISOString(),
          });
        }
        return send(405, ERR(['Method Not Allowed']));
      }
      return send(404, ERR([`No operation ${req.method} /rest/api/${version}/${path} in this contract server`]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    issues,
    requests,
    setStatus(key, statusName) {
      const issue = find(key);
      const s = STATUSES.find((x) => x.name === statusName);
      if (!issue || !s) throw new Error(`no issue ${key} or status ${statusName}`);
      issue.statusId = s.id;
    },
    statusOf: (key) => STATUSES.find((s) => s.id === find(key)?.statusId)?.name ?? '',
    commentTexts: (key) =>
      (find(key)?.comments ?? []).map((c) => (typeof c.body === 'string' ? c.body : adfText(c.body))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
