import { expect } from 'chai';
import { buildOpenApiDocument } from './openapi';
import { ROUTES } from './route-table';

type Schema = Record<string, unknown>;
const doc = buildOpenApiDocument(ROUTES, 'test') as {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Schema>>;
  webhooks: Record<string, Record<string, Schema>>;
};

/** Every place below `node` where an object schema is written out rather than referenced. */
function inlineObjects(node: unknown, at: string, root: boolean): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => inlineObjects(n, `${at}/${i}`, false));
  if (!node || typeof node !== 'object') return [];
  const schema = node as Schema;
  const own = !root && (schema.type === 'object' || 'properties' in schema) ? [at] : [];
  return [
    ...own,
    ...Object.entries(schema).flatMap(([key, value]) =>
      // An allOf's parts are merged into the class of the schema that holds them.
      key === 'allOf'
        ? (value as unknown[]).flatMap((part, i) => inlineObjects(part, `${at}/allOf/${i}`, true))
        : inlineObjects(value, `${at}/${key}`, false),
    ),
  ];
}

describe('the OpenAPI document', () => {
  it('names every object of a body, a response or a component as a component', () => {
    const places = [
      ...Object.entries(doc.components.schemas).flatMap(([name, schema]) =>
        Object.entries(schema).flatMap(([key, value]) =>
          key === 'allOf'
            ? (value as unknown[]).flatMap((part, i) => inlineObjects(part, `${name}/allOf/${i}`, true))
            : inlineObjects(value, `${name}/${key}`, false),
        ),
      ),
      ...inlineObjects(doc.paths, 'paths', false),
      ...inlineObjects(doc.webhooks, 'webhooks', false),
    ];
    expect(places).to.deep.equal([]);
  });

  it('keeps shared schemas plain: null is allowed where a schema is used, never on the component', () => {
    const nullable = Object.entries(doc.components.schemas)
      .filter(([, schema]) => Array.isArray(schema.type) || schema.type === 'null')
      .map(([name]) => name);
    expect(nullable).to.deep.equal([]);
    const lastScan = (doc.components.schemas.Check.properties as Record<string, Schema>).last_scan;
    expect(lastScan).to.deep.equal({ anyOf: [{ $ref: '#/components/schemas/ScanResult' }, { type: 'null' }] });
  });

  it('gives an object written in a response the name of its place, and View where a request schema has it', () => {
    const check = doc.components.schemas.Check.properties as Record<string, Schema>;
    expect(check.tool_settings).to.deep.equal({ $ref: '#/components/schemas/CheckToolSettingsView' });
    expect(check.run_scan_task).to.deep.equal({ $ref: '#/components/schemas/CheckRunScanTask' });
    expect(doc.components.schemas).to.include.keys('CheckToolSettings', 'SourceSettings', 'SourceSettingsView');
  });
});
