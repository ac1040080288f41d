import type { z } from 'zod';
import type { PermissionLetter, Principal } from '../auth';
import { AppError } from '../errors';
import type { UploadedFile } from './upload';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type RouteAccess =
  | { kind: 'public' }
  /** Any authenticated caller (e.g. listing one's own tokens). */
  | { kind: 'authenticated' }
  | { kind: 'permission'; key: string; letter: PermissionLetter; scope: ProjectScope };

/**
 * What a permission route's objects are to project scope (README "Authorization model"). Every
 * permission route names one, so a new object type cannot forget where its projects come from:
 * - `project`: objects of one project each (issues, scans, layers); the owning service answers 404
 *   for another project's object and lists only the caller's projects.
 * - `project-set`: objects that apply to a set of projects (every project, by tag, by code: rules,
 *   gates, policies, trackers, notifiers, sources, tools, reports); the owning service checks the set
 *   with {@link mayChangeProjectSet} and shows it with {@link touchesProjectSet} / {@link visibleProjectSet}.
 * - `organisation`: objects of the whole organisation (statuses, deduplication rules, custom fields);
 *   anyone holding the letter reads them, only a caller whose letter covers every project changes them.
 * - `unscoped`: settings of the whole organisation (login settings, license, error log); read and
 *   changed only by a caller whose letter covers every project.
 * - `grants`: who may do what (users, roles, groups); identity's escalation rule decides.
 */
export type ProjectScope = 'project' | 'project-set' | 'organisation' | 'unscoped' | 'grants';

/**
 * One row of the route table: who owns the path, what the caller needs, and the request schemas
 * that validate it. The gateway enforces `access`; the owning service validates `request`; the
 * OpenAPI document is generated from both.
 */
export interface RouteSpec {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form, `{param}` for path parameters. */
  path: string;
  service: string;
  access: RouteAccess;
  summary: string;
  description?: string;
  tag: string;
  request?: {
    params?: z.ZodObject;
    /** Flat keys as the caller writes them; a pipe maps them after validation (bracket keys to nested objects). */
    query?: z.ZodObject | z.ZodPipe<z.ZodObject, z.ZodTransform>;
    body?: z.ZodType;
  };
  /** Schema of the 200 body, for the OpenAPI document. */
  response?: z.ZodType;
  /**
   * A 200 body that is a file rather than the JSON `response`: its media types (the one a client's
   * generator should parse first), each with the schema of a JSON kind, or `text` or `binary` (OpenAPI).
   */
  files?: Record<string, z.ZodType | 'text' | 'binary'>;
  /** Error statuses this route answers beyond the common ones of its access kind, with when (OpenAPI). */
  errors?: Record<number, string>;
  /** Set on endpoints that answer a redirect (302 with Location) instead of a JSON 200: what it leads to. */
  redirect?: string;
  /** Set on endpoints removed from the interface: they answer 410 with this text. */
  gone?: string;
  /**
   * The body is a file of any content type, up to `maxBytes`: streamed into a temporary file and handed
   * to the handler as an `UploadedFile` (path, size, sha256), removed once the handler has answered.
   */
  upload?: { maxBytes: number };
}

export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export interface HandlerInput<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  params: P;
  query: Q;
  body: B;
  /** Absent only on public routes. */
  principal: Principal | undefined;
  requestId: string;
  /** The client's address as the gateway saw it. */
  clientIp: string;
  /** The X-Bulwark-Via header: the client acting for the caller (`mcp`), set only by the gateway's MCP server. */
  via: string | undefined;
}

type Parsed<S, Otherwise> = S extends z.ZodType ? z.output<S> : Otherwise;
type RequestOf<R> = R extends { request: infer Q } ? Q : object;
type Part<R, K extends string> = RequestOf<R> extends { [P in K]: infer S } ? S : undefined;

/** What the handler of route `R` receives: params, query and body as its schemas give them (an upload's body is the file). */
export type InputOf<R extends RouteSpec> = HandlerInput<
  Parsed<Part<R, 'params'>, Record<string, string>>,
  Parsed<Part<R, 'query'>, Record<string, never>>,
  R extends { upload: object } ? UploadedFile : Parsed<Part<R, 'body'>, undefined>
>;

/** A service's handlers, one per route of its table (`as const`) that is not gone, each typed by its route's schemas. */
export type HandlersOf<Routes extends readonly RouteSpec[]> = {
  [R in Routes[number] as R extends { gone: string } ? never : R['operationId']]: (
    input: InputOf<R>,
  ) => Promise<unknown>;
};

/** A handler result other than a plain 200 JSON body. */
export class HttpResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

// A table of handlers whose inputs differ: each handler's input is checked against its route where the
// handler is written (HandlersOf), and the server passes what that route's schemas parsed. `never` as the
// parameter admits every such handler without `any`; the server's one call says what it passes.
export type RouteHandler = (input: never) => Promise<unknown>;
export type RouteHandlers = Record<string, RouteHandler>;

/** The caller of a route that needs one (every route but the public ones). */
export function requirePrincipal(input: Pick<HandlerInput, 'principal'>): Principal {
  if (!input.principal) throw new AppError('unauthenticated', 'Missing or invalid token');
  return input.principal;
}

/** One page of a list filtered in memory (e.g. the objects a caller limited to some projects sees), with its total. */
export function pageOf<T>(items: readonly T[], q: { page: number; limit: number }): { items: T[]; total: number } {
  return { items: items.slice((q.page - 1) * q.limit, q.page * q.limit), total: items.length };
}

/** The list envelope of every service: `{ items, total, page, limit }`. */
export function listPage<T, V>(
  q: { page: number; limit: number },
  result: { items: T[]; total: number },
  view: (item: T) => V,
) {
  return { items: result.items.map(view), total: result.total, page: q.page, limit: q.limit };
}
