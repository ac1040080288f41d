import { FORMATS } from '@bulwark/findings';
import { expect } from 'chai';
import { buildOpenApiDocument } from './openapi';
import { ROUTES } from './route-table';

type Schema = Record<string, unknown>;
const doc = buildOpenApiDocument(ROUTES, 'test') as {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Schema>>;
  webhooks: Record<string, Record<string, Schema>>;
};

/** Keywords whose schemas only constrain a value's properties further: generators make no class of them. */
const ASSERTIONS = new Set(['if', 'then', 'else', 'not']);

/** Every place below `node` where an object schema is written out rather than referenced. */
function inlineObjects(node: unknown, at: string, root: boolean): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => inlineObjects(n, `${at}/${i}`, false));
  if (!node || typeof node !== 'object') return [];
  const schema = node as Schema;
  const own = !root && (schema.type === 'object' || 'properties' in schema) ? [at] : [];
  return [
    ...own,
    ...Object.entries(schema)
      .filter(([key]) => !ASSERTIONS.has(key))
      .flatMap(([key, value]) =>
        // An allOf's parts are merged into the class of the schema that holds them.
        key === 'allOf'
          ? (value as unknown[]).flatMap((part, i) => inlineObjects(part, `${at}/allOf/${i}`, true))
          : inlineObjects(value, `${at}/${key}`, false),
      ),
  ];
}

describe('the OpenAPI document', () => {
  it('lists every report format, with the tool versions tested, in the upload description', () => {
    const description = String(doc.paths['/api/v1/check/{check_id}/results'].post.description);
    for (const f of FORMATS) expect(description).to.include(`${f.id}: ${f.title} (tested with ${f.testedWith})`);
    expect(description).to.include(
      'govulncheck: govulncheck -json (message stream; older Vulns object) (tested with govulncheck 0.0.0-2022',
    );
  });

  it('names every object of a body, a response or a component as a component', () => {
    const places = [
      ...Object.entries(doc.components.schemas).flatMap(([name, schema]) =>
        Object.entries(schema)
          .filter(([key]) => !ASSERTIONS.has(key))
          .flatMap(([key, value]) =>
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

describe('the OpenAPI document\u2019s bodies', () => {
  const operation = (path: string, method = 'get') => doc.paths[path][method] as Record<string, Schema>;
  const mediaTypes = (path: string, method = 'get') =>
    Object.keys((operation(path, method).responses['200'] as { content: object }).content);

  it('declares a 200 body with its media types on every operation that answers one', () => {
    const bare = ROUTES.filter((r) => !r.gone && !r.redirect)
      .filter((r) => !(operation(r.path, r.method).responses['200'] as Schema).content)
      .map((r) => r.operationId);
    expect(bare).to.deep.equal([]);
  });

  it('declares every format of a report download, the raw report and the exports', () => {
    const report = [
      'application/json',
      'text/csv',
      'text/html',
      'application/pdf',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ];
    expect(mediaTypes('/api/v1/report/{id}/download')).to.deep.equal(report);
    expect(mediaTypes('/api/v1/report/summary/download')).to.deep.equal(report);
    const json = (operation('/api/v1/report/{id}/download').responses['200'] as { content: Record<string, Schema> })
      .content['application/json'].schema;
    expect(json).to.deep.equal({ $ref: '#/components/schemas/ReportDocument' });
    expect(mediaTypes('/api/v1/scan-result/{result_id}/report')).to.have.members([
      'application/xml',
      'text/csv',
      'application/json',
    ]);
    expect(mediaTypes('/api/v1/issues/export')).to.deep.equal(['application/sarif+json', 'text/csv']);
    expect(mediaTypes('/api/v1/layer/{layer_id}/sbom')).to.deep.equal(['application/vnd.cyclonedx+json']);
    expect(mediaTypes('/api/v1/events/csv')).to.deep.equal(['text/csv']);
    expect(mediaTypes('/api/v1/errors-log/csv')).to.deep.equal(['text/csv']);
  });

  it('takes an upload as bytes or as JSON', () => {
    for (const r of ROUTES.filter((x) => x.upload)) {
      const content = (operation(r.path, r.method).requestBody as { content: Record<string, Schema> }).content;
      expect(content, r.operationId).to.deep.equal({
        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        'application/json': { schema: { $ref: '#/components/schemas/UploadedJson' } },
      });
    }
  });

  it('declares every field an issue is answered with', () => {
    expect(doc.components.schemas.Issue.properties).to.include.keys('scanner', 'tool_name', 'ticket');
  });
});

describe('the OpenAPI document\u2019s security, licence and removed operations', () => {
  it('needs a bearer token unless an operation says otherwise, and says what webhook receivers check', () => {
    const full = doc as unknown as Schema & { webhooks: Record<string, { post: Schema }> };
    expect(full.security).to.deep.equal([{ bearer: [] }]);
    for (const [type, webhook] of Object.entries(full.webhooks))
      expect(webhook.post.security, type).to.deep.equal([{ webhookSignature: [] }, {}]);
    expect((full.info as Schema).license).to.deep.equal({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });

  it('marks removed operations deprecated with their 410 only', () => {
    for (const r of ROUTES.filter((x) => x.gone)) {
      const operation = doc.paths[r.path][r.method];
      expect(operation.deprecated, r.operationId).to.equal(true);
      expect(Object.keys(operation.responses as object), r.operationId).to.deep.equal(['410']);
    }
  });
});
