import type { ErrorBody } from './types';

/** The CSRF cookie and header the gateway checks on unsafe methods (POST /api/v1/auth/session sets the cookie). */
const CSRF_COOKIE = 'bulwark_csrf';
const CSRF_HEADER = 'X-CSRF-Token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
  ) {
    super(body?.error.message ?? `HTTP ${status}`);
  }
  /** The API's per-field problems, for showing next to the field they name. */
  problems(): Record<string, string> {
    return Object.fromEntries((this.body?.error.details ?? []).map((d) => [d.field, d.problem]));
  }
}

function csrfToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === CSRF_COOKIE) return rest.join('=');
  }
  return undefined;
}

/**
 * Whether this browser holds a session: the gateway sets and clears the readable CSRF cookie with the
 * HttpOnly session cookie, with the same expiry, so without it any authenticated request would answer 401.
 */
export const hasSession = () => csrfToken() !== undefined;

/** Called on a 401, so the app can show the sign-in page. */
let onUnauthenticated: () => void = () => undefined;
export const setUnauthenticatedHandler = (fn: () => void) => {
  onUnauthenticated = fn;
};

export type Query = Record<string, string | number | boolean | readonly (string | number)[] | undefined>;

/** `filter[x]` with several values repeats the key, as the API reads it. */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * One call of the public API with the session cookie (same origin only); unsafe methods echo the
 * CSRF cookie. Errors come back as ApiError with the API's error body.
 */
export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  query: Query = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    const csrf = csrfToken();
    if (csrf) headers[CSRF_HEADER] = csrf;
  }
  const res = await fetch(`/api/v1${path}${queryString(query)}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    if (res.status === 401 && path !== '/auth/session') onUnauthenticated();
    throw new ApiError(res.status, parsed as ErrorBody | undefined);
  }
  return parsed as T;
}

/** A file download through the cookie session: the link is same-origin, so the browser sends the cookie. */
export const downloadUrl = (path: string, query: Query = {}) => `/api/v1${path}${queryString(query)}`;

/**
 * A file sent as the raw body of a POST (an upload the API reads as it streams), through
 * XMLHttpRequest because fetch reports no upload progress: `onProgress` gets the share sent, 0 to 1.
 */
export function uploadFile<T>(path: string, file: Blob, query: Query, onProgress: (sent: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1${path}${queryString(query)}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    const csrf = csrfToken();
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, undefined));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        parsed = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed as T);
      if (xhr.status === 401) onUnauthenticated();
      reject(new ApiError(xhr.status, parsed as ErrorBody | undefined));
    };
    xhr.send(file);
  });
}
