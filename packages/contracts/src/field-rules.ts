import { getRefId } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';

type JsonSchema = Record<string, unknown>;
type Body = Record<string, unknown>;

/**
 * A rule between the fields of one object that no zod type states: how validation checks it and how
 * JSON Schema (2020-12) states it, from one declaration, so that the OpenAPI document and the
 * validation cannot drift.
 */
export interface FieldRule {
  /** The field at fault and its problem when the value breaks the rule. */
  problem(value: Body): { field: string; message: string } | undefined;
  /** Keywords stating the rule, merged into the object's schema. */
  schema: JsonSchema;
}

const given = (v: unknown) => v !== undefined && v !== null;

/** `field` is required whenever `trigger` is given (dependentRequired). */
export function requiredWith(field: string, trigger: string, message: string): FieldRule {
  return {
    problem: (v) => (given(v[trigger]) && !given(v[field]) ? { field, message } : undefined),
    schema: { dependentRequired: { [trigger]: [field] } },
  };
}

/** `field` is absent or null unless `key` is one of `values`. */
export function allowedOnlyWhen(field: string, key: string, values: string[], message: string): FieldRule {
  return {
    problem: (v) => (given(v[field]) && !values.includes(v[key] as string) ? { field, message } : undefined),
    schema: {
      if: { properties: { [key]: { enum: values } }, required: [key] },
      else: { properties: { [field]: { type: 'null' } } },
    },
  };
}

/** The array `field` is required and not empty when `key` is `value`. */
export function nonEmptyWhen(field: string, key: string, value: unknown, message: string): FieldRule {
  return {
    problem: (v) =>
      v[key] === value && !(Array.isArray(v[field]) && (v[field] as unknown[]).length > 0)
        ? { field, message }
        : undefined,
    schema: {
      if: { properties: { [key]: { const: value } }, required: [key] },
      then: { properties: { [field]: { minItems: 1 } }, required: [field] },
    },
  };
}

/** The arrays `fields` are absent or empty when the array `key` holds `value`; the problem is `key`'s. */
export function emptyWhenContains(fields: string[], key: string, value: string, message: string): FieldRule {
  return {
    problem: (v) =>
      Array.isArray(v[key]) &&
      (v[key] as unknown[]).includes(value) &&
      fields.some((f) => Array.isArray(v[f]) && (v[f] as unknown[]).length > 0)
        ? { field: key, message }
        : undefined,
    schema: {
      if: { properties: { [key]: { contains: { const: value } } }, required: [key] },
      then: { properties: Object.fromEntries(fields.map((f) => [f, { maxItems: 0 }])) },
    },
  };
}

/** At least one of `fields` is given and not the empty string; the problem is the object's own. */
export function atLeastOne(fields: string[], message: string): FieldRule {
  return {
    problem: (v) => (fields.some((f) => given(v[f]) && v[f] !== '') ? undefined : { field: '', message }),
    // Not "each is absent or an empty string".
    schema: { not: { properties: Object.fromEntries(fields.map((f) => [f, { type: 'string', maxLength: 0 }])) } },
  };
}

/**
 * The string `field` must match the pattern given for `key`'s value (and is then required); other
 * values of `key` leave it as its own schema says. Validation checks the same pattern.
 */
export function patternByValue(
  field: string,
  key: string,
  patterns: Record<string, { pattern: RegExp; message: string }>,
): FieldRule {
  return {
    problem: (v) => {
      const rule = patterns[v[key] as string];
      if (!rule) return undefined;
      return typeof v[field] === 'string' && rule.pattern.test(v[field]) ? undefined : { field, message: rule.message };
    },
    schema: ifChain(
      Object.entries(patterns).map(([value, { pattern }]) => ({
        if: { properties: { [key]: { const: value } }, required: [key] },
        then: { properties: { [field]: { pattern: pattern.source } }, required: [field] },
      })),
    ),
  };
}

/** Branches as one if/then/else chain: the first whose `if` holds applies its `then`. */
function ifChain([first, ...rest]: { if: JsonSchema; then: JsonSchema }[]): JsonSchema {
  return { ...first, ...(rest.length > 0 ? { else: ifChain(rest) } : {}) };
}

/** The keys of a record, each one of `names`: for a z.record whose keys a service checks against the same list. */
export function propertyNames(names: string[]): JsonSchema {
  return { propertyNames: { enum: names } };
}

/** A reference to a schema the document holds as a component (one named with `.openapi('Name')`). */
function componentRef(schema: z.ZodType): JsonSchema {
  const name = getRefId(schema);
  if (!name) throw new Error("componentRef: the schema has no name; give it one with .openapi('Name')");
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * `field` as the type that `key` names takes it: `if` key is a type's id `then` field is the type's
 * named schema, `else` the next type (types sharing one schema in one branch). A chain rather than
 * an allOf of independent if/then: the ids exclude each other, so both say the same, and a fuzzer
 * rewriting each if/then as two branches meets 2^n combinations of an allOf, n of a chain. Keywords
 * only: the service checks `field` with the same schema once it knows the type (an update's stored
 * one, when it names none).
 */
export function schemaPerType(key: string, field: string, types: { id: number; schema: z.ZodType }[]): JsonSchema {
  const ids = new Map<z.ZodType, number[]>();
  for (const { id, schema } of types) ids.set(schema, [...(ids.get(schema) ?? []), id]);
  const branches = [...ids].map(([schema, of]) => ({
    if: { properties: { [key]: of.length === 1 ? { const: of[0] } : { enum: of } }, required: [key] },
    then: { properties: { [field]: componentRef(schema) } },
  }));
  return { allOf: [ifChain(branches)] };
}

/** Keywords of several rules as one schema: at most one of them a conditional (if). */
function merged(rules: FieldRule[]): JsonSchema {
  const out: JsonSchema = {};
  for (const { schema } of rules)
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === 'dependentRequired')
        out.dependentRequired = { ...(out.dependentRequired as JsonSchema), ...(value as JsonSchema) };
      else if (keyword in out) throw new Error(`field rules: two rules state ${keyword}; nest them in one`);
      else out[keyword] = value;
    }
  return out;
}

/** The object with its field rules: checked after its own fields, and stated in its schema. */
export function withFieldRules<T extends z.ZodObject>(object: T, rules: FieldRule[]): T {
  return object
    .superRefine((value, ctx) => {
      for (const rule of rules) {
        const problem = rule.problem(value);
        if (problem)
          ctx.addIssue({ code: 'custom', path: problem.field ? [problem.field] : [], message: problem.message });
      }
    })
    .openapi(merged(rules));
}
