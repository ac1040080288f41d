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
        out.push({
          field: fieldName(prefix, [...issue.path, key]),
          problem: prefix === 'query' ? 'unknown parameter' : 'unknown field',
        });
      }
    } else {
      const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
      out.push({ field: fieldName(prefix, issue.path), problem: missing ? 'is required' : issue.message });
    }
  }
  return out;
}

interface Visit {
  value: unknown;
  /** Where the value sits in its parent; the root has none. */
  step?: { key: PropertyKey; parent: Visit };
}

function pathOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = visit.step; at; at = at.parent.step) path.push(at.key);
  return path.reverse();
}

/** Enough to name the fields at fault without letting a crafted body make the answer expensive. */
const MAX_NUL_PROBLEMS = 20;

/**
 * Every string and key holding U+0000, as a problem of its field. PostgreSQL text and jsonb cannot
 * store that character, so it is refused here, for every route at once, instead of failing in SQL.
 * Iterative, with paths built only for a problem: a deeply nested body costs linear time, no stack.
 */
export function nulProblems(value: unknown, prefix: 'body' | 'query' | 'params'): FieldProblem[] {
  const out: FieldProblem[] = [];
  const pending: Visit[] = [{ value }];
  while (out.length < MAX_NUL_PROBLEMS) {
    const visit = pending.pop();
    if (!visit) break;
    const v = visit.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000'))
        out.push({ field: fieldName(prefix, pathOf(visit)), problem: 'must not contain the NUL character (U+0000)' });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => pending.push({ value: item, step: { key: i, parent: visit } }));
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        if (key.includes('\u0000'))
          out.push({ field: fieldName(prefix, pathOf(visit)), problem: 'has a key with the NUL character (U+0000)' });
        else pending.push({ value: item, step: { key, parent: visit } });
      }
    }
  }
  return out;
}

function invalidInput(prefix: 'body' | 'query' | 'params', details: FieldProblem[]): AppError {
  const what = prefix === 'body' ? 'request body' : prefix === 'query' ? 'query parameters' : 'path parameters';
  return new AppError(
    'invalid_request',
    `Invalid ${what}: ${details.map((d) => `${d.field} ${d.problem}`).join('; ')}`,
    details,
  );
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: 'body' | 'query' | 'params',
): z.infer<S> {
  const nul = nulProblems(value, prefix);
  if (nul.length > 0) throw invalidInput(prefix, nul);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidInput(prefix, problemsOf(result.error, prefix));
}
