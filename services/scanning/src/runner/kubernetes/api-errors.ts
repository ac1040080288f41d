/** Reading the Kubernetes client's errors without echoing a request or its headers. */

export function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** The API server's own explanation (a Status' message), never the request or its headers. */
export function apiMessage(err: unknown): string {
  let body = (err as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // not a Status
    }
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string') return message;
  const code = statusCode(err);
  return code ? `HTTP ${code}` : (err as Error).message || 'the API server could not be reached';
}
