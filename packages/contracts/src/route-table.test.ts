import { expect } from 'chai';
import { buildOpenApiDocument, isPermissionKey, ROUTES } from './index';

describe('the route table', () => {
  it('has one operation id and one route per method and path', () => {
    const ids = ROUTES.map((r) => r.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).to.equal(keys.length);
  });

  it('names only permission keys of the catalogue', () => {
    const unknown = ROUTES.flatMap((r) =>
      r.access.kind === 'permission' && !isPermissionKey(r.access.key) ? [`${r.operationId}: ${r.access.key}`] : [],
    );
    expect(unknown).to.deep.equal([]);
  });

  it('serves the guide\u2019s error log and license operations, owned and guarded as documented', () => {
    const owner = (method: string, path: string) => {
      const r = ROUTES.find((x) => x.method === method && x.path === path);
      return (
        r && `${r.service} ${r.access.kind === 'permission' ? `${r.access.key}:${r.access.letter}` : r.access.kind}`
      );
    };
    expect(
      ['/api/v1/errors-log', '/api/v1/errors-log/csv', '/api/v1/errors-log/filters'].map((p) => owner('get', p)),
    ).to.deep.equal(Array(3).fill('notifications administration.errors_log:r'));
    expect(
      ['/api/v1/license', '/api/v1/license/status', '/api/v1/license/environment'].map((p) => owner('get', p)),
    ).to.deep.equal(Array(3).fill('identity administration.license:r'));
    expect(owner('put', '/api/v1/license')).to.equal('identity administration.license:w');
  });

  it('keeps every path under /api/v1', () => {
    expect(ROUTES.filter((r) => !r.path.startsWith('/api/v1/')).map((r) => r.path)).to.deep.equal([]);
  });

  it('generates an OpenAPI 3.1 document with every route', () => {
    const doc = buildOpenApiDocument(ROUTES, 'test') as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).to.equal('3.1.0');
    for (const r of ROUTES) expect(doc.paths[r.path]?.[r.method], `${r.method} ${r.path}`).to.be.an('object');
  });

  it('declares every path parameter of every operation, removed ones included', () => {
    const doc = buildOpenApiDocument(ROUTES, 'test') as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>>;
    };
    const undeclared = ROUTES.flatMap((r) => {
      const declared = (doc.paths[r.path][r.method].parameters ?? [])
        .filter((p) => p.in === 'path' && p.required)
        .map((p) => p.name);
      const inPath = [...r.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
      return inPath.filter((name) => !declared.includes(name)).map((name) => `${r.method} ${r.path}: ${name}`);
    });
    expect(undeclared).to.deep.equal([]);
  });
});
