import { z } from './zod';
import type { PermissionLetter, ProjectScope } from '@bulwark/platform';

/** Query strings carry text: these read booleans and numbers from it strictly. */
export const queryBool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .openapi({ type: 'boolean' });

/**
 * Most values a multi-valued filter takes. The gateway takes a request line and headers of at most
 * 16 KiB (431 above): a thousand repeated keys alone do not fit, a hundred do with room for the rest.
 */
export const MULTI_MAX_VALUES = 100;

/** Repeated query keys arrive as arrays: a multi-valued filter takes one value or a list, and reads as a list. */
export const multi = <T extends z.ZodType>(item: T) =>
  z
    .union([item, z.array(item).max(MULTI_MAX_VALUES, `must have at most ${MULTI_MAX_VALUES} values`)])
    .transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[])
    .optional();

/** The largest value of a PostgreSQL integer column, which holds every whole number of the API. */
export const INT4_MAX = 2_147_483_647;

/** A whole number from `min` up to what an integer column holds: beyond, the store would fail, not refuse. */
export const int4 = (min: number) => z.number().int().min(min).max(INT4_MAX, `must be at most ${INT4_MAX}`);

/** The same, read from a query string. */
export const queryInt4 = (min: number) => z.coerce.number().int().min(min).max(INT4_MAX, `must be at most ${INT4_MAX}`);

export const pageQuery = {
  page: queryInt4(1).default(1).openapi({ description: 'Page number, from 1', example: 1 }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000, 'must be at most 1000')
    .default(50)
    .openapi({ description: 'Records per page: default 50, maximum 1000', example: 50 }),
};

export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int(),
      page: z.number().int(),
      limit: z.number().int(),
    })
    .openapi(name);
}

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const OFFSET_HOURS = /([+-])(\d{2}):\d{2}$/;
/**
 * What the document states beside `format: date-time`, which also allows a lower-case `z`, year 0000
 * and offsets up to ±23:59: a year from 0001 and `Z` or an offset within ±15:59.
 */
const DATE_TIME_PATTERN = '^(000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})-.*(Z|[+-](0\\d|1[0-5]):[0-5]\\d)$';

/**
 * An ISO 8601 date-time with offset that PostgreSQL's timestamptz and JavaScript's Date both read:
 * offsets within ±15:59 and instants in the years 0001 to 9999. (Malformed text is left to the
 * format check, so it gets one problem, not three.)
 */
export const isoDateTime = z.iso
  .datetime({ offset: true })
  .refine((v) => Number(OFFSET_HOURS.exec(v)?.[2] ?? 0) <= 15, 'must have a time-zone offset between -15:59 and +15:59')
  .refine((v) => {
    const at = Date.parse(v);
    return Number.isNaN(at) || (at >= FIRST_INSTANT && at <= LAST_INSTANT);
  }, 'must be in the years 0001 to 9999 (UTC)')
  .openapi({ example: '2026-12-31T23:59:59Z', pattern: DATE_TIME_PATTERN });

/** The tags an organisation-wide object (a policy, an SLA policy) applies to projects by. */
export const policyProjectTags = z
  .array(z.string().min(1).max(64))
  .max(100)
  .openapi({ description: 'Projects carrying any of these tags get the policy' });

export const idsBody = z
  .object({ ids: z.array(z.string().min(1)).min(1).max(1000) })
  .strict()
  .openapi('IdsBody', { description: 'Bulk operation: the ids to act on' });

export const bulkResult = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum([
          'deleted',
          'revoked',
          'restored',
          'archived',
          'unarchived',
          'not_found',
          'conflict',
          'forbidden',
          'unchanged',
        ]),
        message: z.string().optional(),
      }),
    ),
  })
  .openapi('BulkResult', { description: 'What was done, per id' });

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_request' }),
      message: z.string(),
      details: z.array(z.object({ field: z.string(), problem: z.string() })).optional(),
    }),
  })
  .openapi('Error');

/** A route's access: the permission key and letter it needs, and what its objects are to project scope. */
export const perm = (key: string, letter: PermissionLetter, scope: ProjectScope) => ({
  kind: 'permission' as const,
  key,
  letter,
  scope,
});

type Outer<K> = K extends `${infer O}[${string}]` ? O : never;
type Inner<K, O extends string> = K extends `${O}[${infer I}]` ? I : never;

/** A flat query's bracket keys (`filter[a]`, `search[b]`) as nested objects (`filter.a`, `search.b`); other keys as they are. */
export type NestBrackets<T> = { [K in keyof T as K extends `${string}[${string}]` ? never : K]: T[K] } & {
  [O in Outer<keyof T>]: { [K in keyof T as Inner<K, O>]: T[K] };
};

const BRACKET_KEY = /^([^[\]]+)\[([^[\]]+)\]$/;

/**
 * A list's query whose `filter[…]` and `search[…]` keys reach the handler as nested objects, so no
 * handler looks a key up by string. The keys are validated flat, as the caller writes them: a 400
 * names `filter[version]`, and the OpenAPI document lists each key as a parameter (deepObject keys
 * would be one object parameter). Each prefix's object exists even when none of its keys was given.
 */
export function bracketQuery<S extends z.ZodObject>(flat: S) {
  const prefixes = [...new Set(Object.keys(flat.shape).flatMap((k) => BRACKET_KEY.exec(k)?.[1] ?? []))];
  return flat.transform((q) => {
    const out: Record<string, unknown> = Object.fromEntries(prefixes.map((p) => [p, {}]));
    for (const [key, value] of Object.entries(q)) {
      const m = BRACKET_KEY.exec(key);
      if (m) (out[m[1]] as Record<string, unknown>)[m[2]] = value;
      else out[key] = value;
    }
    return out as NestBrackets<z.output<S>>;
  });
}

/** Path parameters of a route addressing one record by its id. */
export const byId = z.object({ id: z.uuid() });

/**
 * An http(s) URL of a host name (not an IP address) and a path, which the WHATWG parser behind z.url
 * takes: what the document says of web addresses, narrower than their `format: uri`, which allows
 * any scheme.
 */
export const WEB_URL_PATTERN =
  "^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/[A-Za-z0-9._~!$&'()*+,;=:@/-]*)?$";

/** An http or https URL. */
export function webUrl() {
  return z.url({ protocol: /^https?$/ }).openapi({ pattern: WEB_URL_PATTERN });
}

/** The whitespace String.prototype.trim removes, spelled out so that every regex engine reads the same set. */
export const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** A string with a character besides that whitespace, and no NUL (which every request's strings lack). */
export const NOT_BLANK_PATTERN = `^[^\\u0000]*[^\\u0000${TRIMMED}][^\\u0000]*$`;

/** Text that is not blank: trimmed, then 1 to `max` characters; the document states that it is not blank. */
export function nonBlank(max: number) {
  return z.string().trim().min(1).max(max).openapi({ pattern: NOT_BLANK_PATTERN });
}
