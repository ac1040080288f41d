/** One problem with one request field, as an error body's `details` name it. */
interface ReadProblem {
  field: string;
  problem: string;
}

/**
 * The error of an answer's text when it is Bulwark's error body (`{ "error": { "code", "message",
 * "details" } }`, see errors.ts); undefined for anything else, such as a proxy's page. For clients
 * of the API (the CLI, the gateway's MCP tools): it imports nothing, so a command starts quickly.
 */
export function readErrorBody(text: string): { code: string; message: string; details: ReadProblem[] } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error: unknown = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  const problems = Array.isArray(details)
    ? details.filter(
        (d): d is ReadProblem =>
          typeof d === 'object' &&
          d !== null &&
          typeof (d as ReadProblem).field === 'string' &&
          typeof (d as ReadProblem).problem === 'string',
      )
    : [];
  return { code, message, details: problems };
}
