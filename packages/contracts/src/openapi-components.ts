import { getRefId, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { className, moduleKey } from './openapi-class-names';

type Schema = Record<string, unknown>;

// Wrappers whose named inner schema must be the component, so that the wrapper only adds to it.
const WRAPPERS = new Set(['nullable', 'optional', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

function children(def: Record<string, unknown>): unknown[] {
  switch (def.type) {
    case 'object':
      return Object.values(def.shape as Record<string, unknown>);
    case 'array':
      return [def.element];
    case 'union':
      return def.options as unknown[];
    case 'record':
      return [def.valueType];
    case 'tuple':
      return [...(def.items as unknown[]), def.rest];
    case 'intersection':
      return [def.left, def.right];
    case 'pipe':
      return [def.in, def.out];
    case 'lazy':
      return [(def.getter as () => unknown)()];
    default:
      return WRAPPERS.has(def.type as string) ? [def.innerType] : [];
  }
}

/**
 * Registers every named schema (`.openapi('Name')`) under the given ones as it is, those it uses
 * before it, and all before any route. Otherwise the first use generates the component, and a first use through `.nullable()`
 * makes the shared schema itself nullable; registered first, a nullable use becomes a reference
 * with null beside it ({@link nullableReferences}). A name given to a wrapper (`x.nullable().openapi('X')`)
 * names the schema inside it.
 */
export function registerNamedSchemas(registry: OpenAPIRegistry, roots: z.ZodType[]): void {
  const registered = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (schema: z.ZodType | undefined) => {
    if (!schema || seen.has(schema)) return;
    seen.add(schema);
    const def = schema._zod.def as unknown as Record<string, unknown>;
    // Inner schemas first: generating a component generates those it uses.
    for (const child of children(def)) visit(child as z.ZodType | undefined);
    const refId = getRefId(schema);
    if (refId && !registered.has(refId)) {
      if (!WRAPPERS.has(def.type as string)) {
        registered.add(refId);
        registry.register(refId, schema);
      } else {
        const inner = def.innerType as z.ZodType;
        if (getRefId(inner) !== refId) {
          registered.add(refId);
          registry.register(refId, inner.openapi(refId));
        }
      }
    }
  };
  for (const root of roots) visit(root);
}

function walk(node: unknown, each: (schema: Schema) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, each));
  else if (node && typeof node === 'object') {
    each(node as Schema);
    Object.values(node).forEach((n) => walk(n, each));
  }
}

/**
 * The generator writes a nullable use of a component as `allOf: [$ref, { type: [..., 'null'] }]`,
 * which no value but one of the component's satisfies; this states it as
 * `anyOf: [$ref, { type: 'null' }]`, keeping the use's own keywords (its description) beside it.
 */
export function nullableReferences(doc: Schema): void {
  walk(doc, (schema) => {
    const parts = schema.allOf;
    if (!Array.isArray(parts) || parts.length !== 2 || typeof (parts[0] as Schema).$ref !== 'string') return;
    const { type, ...rest } = parts[1] as Schema;
    if (!(type === 'null' || (Array.isArray(type) && type.includes('null')))) return;
    delete schema.allOf;
    Object.assign(schema, rest, { anyOf: [parts[0], { type: 'null' }] });
  });
}

function isObject(schema: Schema): boolean {
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || 'properties' in schema;
}

function singleValue(schema: Schema, key: string): string | undefined {
  const property = (schema.properties as Record<string, Schema> | undefined)?.[key];
  const values = property?.enum ?? (property && 'const' in property ? [property.const] : undefined);
  return Array.isArray(values) && values.length === 1 ? String(values[0]) : undefined;
}

/** Names for the variants of a union: by the literal they share a property for (`mode: pair` → Pair), else by position. */
function variantNames(variants: Schema[]): string[] {
  const keys = Object.keys(variants[0]?.properties ?? {});
  const tag = keys.find((key) => variants.every((v) => singleValue(v, key) !== undefined));
  return variants.map((v, i) => (tag ? className(singleValue(v, tag) as string) : `Variant${i + 1}`));
}

type Usage = 'request' | 'response';

/**
 * Makes every object schema of the document a named component, so that a generator derives no class
 * name of its own (which may collide with a component's, dropping both). An object inside a component
 * is named after its place: component + property (`Check.tool_settings` → `CheckToolSettings`), `Item`
 * for an array's items, the discriminating literal or the position for a union's variants (an allOf's
 * parts stay, being merged into one class); a request or response body written inline after its
 * operation (`createReport` → `CreateReportInput`, `getFoo` → `GetFooResponse`), a webhook's body
 * after the webhook. When the name is taken (after
 * the generators' normalisation), `View` (in responses) or `Input` (in requests) is appended; a name
 * still taken is an error: give the schema a name with `.openapi('Name')`.
 */
export function nameInlineObjects(doc: {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
}): void {
  const schemas = doc.components.schemas;
  const taken = new Map(Object.keys(schemas).map((name) => [moduleKey(name), name]));
  const queue: { name: string; usage: Usage }[] = [];

  const hoist = (schema: Schema, name: string, usage: Usage): Schema => {
    let chosen = name;
    if (taken.has(moduleKey(chosen))) chosen = `${name}${usage === 'response' ? 'View' : 'Input'}`;
    const holder = taken.get(moduleKey(chosen));
    if (holder)
      throw new Error(
        `OpenAPI: the object at ${name} needs a name of its own (${chosen} is ${holder}'s); give it one with .openapi('Name')`,
      );
    taken.set(moduleKey(chosen), chosen);
    // The component is the object; a nullable place says so beside the reference.
    const nullable = Array.isArray(schema.type) && schema.type.includes('null');
    if (nullable) schema.type = 'object';
    schemas[chosen] = schema;
    queue.push({ name: chosen, usage });
    const ref = { $ref: `#/components/schemas/${chosen}` };
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  };

  const visit = (schema: Schema, name: string, usage: Usage, root = false): Schema => {
    if (!root && isObject(schema)) return hoist(schema, name, usage);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const [key, value] of Object.entries(properties))
      properties[key] = visit(value, `${name}${className(key)}`, usage);
    if (schema.items && typeof schema.items === 'object')
      schema.items = visit(schema.items as Schema, `${name}Item`, usage);
    if (Array.isArray(schema.prefixItems))
      schema.prefixItems = schema.prefixItems.map((item: Schema, i) => visit(item, `${name}Item${i + 1}`, usage));
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
      schema.additionalProperties = visit(schema.additionalProperties as Schema, `${name}Value`, usage);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const variants = schema[key] as Schema[] | undefined;
      if (!variants) continue;
      const objects = variants.filter(isObject);
      const names = objects.length === 1 ? [''] : variantNames(objects);
      schema[key] = variants.map((v) => (isObject(v) ? visit(v, `${name}${names[objects.indexOf(v)]}`, usage) : v));
    }
    // The parts of an allOf are merged into one class by the generators: only what is inside them is named.
    if (Array.isArray(schema.allOf)) schema.allOf = schema.allOf.map((part: Schema) => visit(part, name, usage, true));
    return schema;
  };

  const bodies = (operations: Record<string, Record<string, Operation>>, webhook: boolean) => {
    for (const methods of Object.values(operations))
      for (const operation of Object.values(methods)) {
        const base = className(operation.operationId ?? '');
        for (const media of Object.values(operation.requestBody?.content ?? {}))
          if (media.schema)
            media.schema = visit(media.schema, webhook ? base : `${base}Input`, webhook ? 'response' : 'request');
        for (const response of Object.values(operation.responses ?? {}))
          for (const media of Object.values(response.content ?? {}))
            if (media.schema) media.schema = visit(media.schema, `${base}Response`, 'response');
      }
  };
  // Components first, so that their own names win over those of inline bodies.
  const usages = componentUsages(doc);
  for (const name of Object.keys(schemas)) queue.push({ name, usage: usages.get(name) ?? 'response' });
  for (let next = queue.shift(); next; next = queue.shift()) visit(schemas[next.name], next.name, next.usage, true);
  bodies(doc.paths, false);
  bodies(doc.webhooks ?? {}, true);
  for (let next = queue.shift(); next; next = queue.shift()) visit(schemas[next.name], next.name, next.usage, true);
}

interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** Whether each component is reached from a request body (`request`, even if also from a response) or only from responses. */
function componentUsages(doc: {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Operation>>;
}) {
  const usage = new Map<string, Usage>();
  const reach = (node: unknown, as: Usage) => {
    walk(node, (schema) => {
      const ref = schema.$ref;
      if (typeof ref !== 'string') return;
      const name = ref.slice('#/components/schemas/'.length);
      if (usage.get(name) === 'request' || usage.get(name) === as) return;
      usage.set(name, as);
      reach(doc.components.schemas[name], as);
    });
  };
  for (const methods of Object.values(doc.paths))
    for (const operation of Object.values(methods)) {
      reach(operation.requestBody, 'request');
      reach(operation.responses, 'response');
    }
  return usage;
}

/**
 * The generator writes a tuple (`z.tuple([a, b])`) as its `prefixItems` alone, which any shorter or
 * longer array satisfies; a tuple without a rest element has exactly those items. (The route table's
 * tuples have no optional elements.)
 */
export function closedTuples(doc: Schema): void {
  walk(doc, (schema) => {
    if (!Array.isArray(schema.prefixItems) || 'items' in schema) return;
    schema.minItems = schema.prefixItems.length;
    schema.maxItems = schema.prefixItems.length;
  });
}
