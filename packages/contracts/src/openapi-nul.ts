type Schema = Record<string, unknown>;

interface Document {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

/** A string without U+0000: what every request's strings must be (the platform's validation refuses it). */
export const NUL_FREE_PATTERN = '^[^\\u0000]*$';

const COMPONENT = '#/components/schemas/';

function isString(schema: Schema): boolean {
  return schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
}

/** A string schema that states nothing of its characters yet (no pattern, format, enum or const). */
function statesNoCharacters(schema: Schema): boolean {
  return isString(schema) && !['pattern', 'format', 'enum', 'const', 'contentMediaType'].some((k) => k in schema);
}

/** Marks every string of a request's schema NUL-free, following references into the components once. */
function stateNulFree(doc: Document, schema: unknown, seen: Set<string>): void {
  if (Array.isArray(schema)) return schema.forEach((s) => stateNulFree(doc, s, seen));
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Schema;
  if (typeof node.$ref === 'string' && node.$ref.startsWith(COMPONENT)) {
    const name = node.$ref.slice(COMPONENT.length);
    if (seen.has(name)) return;
    seen.add(name);
    return stateNulFree(doc, doc.components?.schemas?.[name], seen);
  }
  if (statesNoCharacters(node)) node.pattern = NUL_FREE_PATTERN;
  // The keys of an object that takes any (a record) are strings of the request too.
  if (node.type === 'object' && node.additionalProperties !== false) {
    const names = (node.propertyNames ?? {}) as Schema;
    if (statesNoCharacters({ type: 'string', ...names })) node.propertyNames = { ...names, pattern: NUL_FREE_PATTERN };
  }
  // then and else: a body's settings per type are components referred to only from there.
  for (const key of ['anyOf', 'oneOf', 'allOf', 'then', 'else', 'prefixItems', 'items', 'additionalProperties'])
    stateNulFree(doc, node[key], seen);
  if (node.properties && typeof node.properties === 'object') stateNulFree(doc, Object.values(node.properties), seen);
}

/**
 * States on every parameter and request body what validation refuses in each of their strings: the
 * NUL character, which PostgreSQL text cannot hold. A string whose pattern or format already says
 * which characters it takes is left as it is. Components a request uses are changed where they
 * are, so the same statement holds of a response that uses them, which is true of what the stores return.
 */
export function nulFreeRequests(doc: Document): void {
  const seen = new Set<string>();
  for (const operations of Object.values(doc.paths ?? {}))
    for (const operation of Object.values(operations)) {
      const { parameters = [], requestBody } = operation as {
        parameters?: { schema?: Schema }[];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
      };
      for (const parameter of parameters) stateNulFree(doc, parameter.schema, seen);
      for (const media of Object.values(requestBody?.content ?? {})) stateNulFree(doc, media.schema, seen);
    }
}
