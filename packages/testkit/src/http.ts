/** A JSON body a test reads without a type per route, checking its shape with chai. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies of every shape, checked by the test
export type Json = any;

export interface ApiResponse<T = Json> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small client for the gateway: JSON in, JSON out, never throws on an HTTP status. */
export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly token?: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  as(token: string | undefined): Api {
    return new Api(this.baseUrl, token, this.extraHeaders);
  }

  withHeaders(headers: Record<string, string>): Api {
    return new Api(this.baseUrl, this.token, { ...this.extraHeaders, ...headers });
  }

  async request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    rawBody?: string | Uint8Array,
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.extraHeaders };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let payload: string | Uint8Array | undefined = rawBody;
    if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(this.baseUrl + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON bodies (HTML, files) stay text.
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** A GET whose body is a file: the bytes as they came. */
  async download(path: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
    const res = await fetch(this.baseUrl + path, {
      headers: { ...this.extraHeaders, ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  }

  get<T = Json>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = Json>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }
  put<T = Json>(path: string, body?: unknown) {
    return this.request<T>('PUT', path, body ?? {});
  }
  delete<T = Json>(path: string, body?: unknown) {
    return this.request<T>('DELETE', path, body);
  }

  /** As an administrator: creates a local user with these roles and answers its id. */
  async createUser(username: string, password: string, roles: string[] = []): Promise<string> {
    const res = await this.post<{ id: string }>('/api/v1/user', {
      username,
      password,
      password_confirmation: password,
      roles,
    });
    if (res.status !== 200)
      throw new Error(`creating user ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  async login(username: string, password: string): Promise<string> {
    const res = await this.post<{ access_token: string }>('/api/v1/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`login as ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.access_token;
  }
}

/** What a 400 says of `field` (the error's details name it); otherwise fails the test, showing the body. */
export function fieldProblem(res: ApiResponse, field: string): string {
  const details = res.status === 400 ? (res.body?.error?.details as Json[] | undefined) : undefined;
  const detail = details?.find((d) => d.field === field);
  if (!detail) throw new Error(`expected a 400 naming ${field}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return detail.problem as string;
}

/** The body of an answer that must have `status`; otherwise fails the test, showing the body. */
export function expectStatus(res: ApiResponse, status: number): Json {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
