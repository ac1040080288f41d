import type { z } from 'zod';
import { AppError, FieldProblem } from '../errors';

function fieldName(prefix: string, path: PropertyKey[]): string {
  const parts = path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)));
  const joined = parts.reduce((acc, p) => (p.startsWith('[') || acc === '' ? acc + p : `${acc}.${p}`), '');
  return prefix === 'body' ? joined || 'body' : joined || prefix;
}

/** Zod issues as `{ field, problem }`, one per problem, naming unknown keys one by one. */
export function problemsOf(error: z.ZodError, prefix: 'body' | 'query' | 'params'): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ field: fieldName(prefix, [...issue.path, key]), problem: prefix === 'query' ? 'unknown parameter' : 'unknown field' });
      }
    } else {
      const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
      out.push({ field: fieldName(prefix, issue.path), problem: missing ? 'is required' : issue.message });
    }
  }
  return out;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix: 'body' | 'query' | 'params'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = problemsOf(result.error, prefix);
  const message = `Invalid ${prefix === 'body' ? 'request body' : prefix === 'query' ? 'query parameters' : 'path parameters'}: ${details
    .map((d) => `${d.field} ${d.problem}`)
    .join('; ')}`;
  throw new AppError('invalid_request', message, details);
}
