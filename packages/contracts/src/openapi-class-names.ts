/**
 * The class names a client generator derives from a schema's name, as openapi-python-client does
 * (its `ClassName`: the sanitised name split into words, each capitalised unless all upper case).
 * Two schemas whose names come out the same become one class there, and the generator drops both.
 */
const DELIMITERS = /[. _-]+/;

export function className(name: string): string {
  const sanitised = [...name].filter((c) => /[\p{L}\p{N}_. -]/u.test(c)).join('');
  const spaced = /\p{Lu}/u.test(sanitised) ? sanitised.split(/([A-Z]?[a-z]+)/).join(' ') : sanitised;
  return spaced
    .split(DELIMITERS)
    .filter((word) => word.length > 0)
    .map((word) => (word === word.toUpperCase() ? word : word[0].toUpperCase() + word.slice(1).toLowerCase()))
    .join('');
}

/** Python modules are the snake case of the class: names differing only in case share a file. */
export function moduleKey(name: string): string {
  return className(name).toLowerCase();
}

type Schema = Record<string, unknown>;

/**
 * The classes a generator makes of a document: one per component, and one per enum written inline in
 * a component's property (named component + property) or an operation's parameter (operation +
 * parameter). Returns every class name claimed by two definitions that differ.
 */
export function classNameCollisions(doc: {
  components?: { schemas?: Record<string, Schema> };
  paths?: Record<string, Record<string, { operationId?: string; parameters?: Schema[] }>>;
}): string[] {
  const claims = new Map<string, { owner: string; definition: string }[]>();
  const claim = (name: string, owner: string, definition: unknown) => {
    const key = moduleKey(name);
    const list = claims.get(key) ?? [];
    list.push({ owner, definition: JSON.stringify(definition) });
    claims.set(key, list);
  };
  const inlineEnums = (schema: Schema, name: string, owner: string) => {
    if (Array.isArray(schema.enum) && schema.enum.length > 1) claim(name, owner, schema.enum);
    if (schema.items && typeof schema.items === 'object')
      inlineEnums(schema.items as Schema, `${name}Item`, `${owner}/items`);
  };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    claim(name, `#/components/schemas/${name}`, schema);
    for (const [prop, value] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
      inlineEnums(value, `${name}${className(prop)}`, `#/components/schemas/${name}/properties/${prop}`);
  }
  for (const operations of Object.values(doc.paths ?? {}))
    for (const operation of Object.values(operations))
      for (const parameter of operation.parameters ?? [])
        if (parameter.schema && operation.operationId)
          inlineEnums(
            parameter.schema as Schema,
            `${operation.operationId}_${String(parameter.name)}`,
            `${operation.operationId} parameter ${String(parameter.name)}`,
          );
  return [...claims.entries()]
    .filter(([, list]) => new Set(list.map((c) => c.definition)).size > 1)
    .map(([key, list]) => `${key}: ${[...new Set(list.map((c) => c.owner))].join(', ')}`);
}
