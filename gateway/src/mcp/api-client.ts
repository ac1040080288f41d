import { readErrorBody, REQUEST_ID_HEADER, VIA_HEADER } from '@bulwark/platform';

/** A query string's values: arrays repeat the parameter, undefined leaves it out. */
export type QueryValues = Record<string, string | number | boolean | (string | number)[] | undefined>;

/** An answer of the API other than 200, as the tool's error: the status and the API's own message. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`Bulwark API answered ${status}: ${message}`);
  }
}

export interface ApiCaller {
  /** The gateway's own base URL (this replica), e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The MCP caller's bearer token, carried as it came: the API decides what it may see and do. */
  token: string;
  requestId: string;
  /** What makes the gateway take the call as the MCP caller's own (its address, X-Bulwark-Via). */
  innerCallHeaders: Record<string, string>;
  timeoutMs: number;
}

/**
 * Bulwark's /api/v1 through the gateway, as the MCP caller: the caller's token (so the route's
 * permission and project scope apply exactly as to the caller's own requests), the MCP request's id,
 * its address (the per-IP limit counts the caller's, not the gateway's), and X-Bulwark-Via: mcp (the
 * issues service marks the history and refuses writes when disabled), both taken only from an inner call.
 */
export class BulwarkApi {
  constructor(private readonly caller: ApiCaller) {}

  get<T>(path: string, query: QueryValues = {}): Promise<T> {
    return this.call<T>('GET', `${path}${queryString(query)}`);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }

  private async call<T>(method: string, pathAndQuery: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.caller.baseUrl}${pathAndQuery}`, {
      method,
      headers: {
        authorization: `Bearer ${this.caller.token}`,
        accept: 'application/json',
        [REQUEST_ID_HEADER]: this.caller.requestId,
        [VIA_HEADER]: 'mcp',
        ...this.caller.innerCallHeaders,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.caller.timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) throw new ApiCallError(res.status, readErrorBody(text)?.message ?? res.statusText);
    return parseJson(text) as T;
  }
}

function queryString(query: QueryValues): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
