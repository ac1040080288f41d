import { expect } from 'chai';
import { buildOpenApiDocument } from './openapi';
import { className, classNameCollisions } from './openapi-class-names';
import { ROUTES } from './route-table';

describe('OpenAPI class names', () => {
  it('normalises names as openapi-python-client does', () => {
    // Each pair as openapi-python-client 0.29's ClassName writes it.
    const cases: [string, string][] = [
      ['SourceSettings', 'SourceSettings'],
      ['IDsBody', 'IDsBody'],
      ['webhook_scan.completed', 'WebhookScanCompleted'],
      ['listIssues_filter[state]', 'ListIssuesFilterstate'],
      ['a-b_c d', 'ABCD'],
      ['ÄrgerX', 'ÄRgerX'],
      ['x2y', 'X2y'],
      ['LDAPSettings', 'LDAPSettings'],
    ];
    expect(cases.map(([name]) => [name, className(name)])).to.deep.equal(cases);
  });

  it('finds two schemas that one class name would stand for', () => {
    const doc = {
      components: {
        schemas: {
          Source_Settings: { type: 'object' },
          SourceSettings: { type: 'object', properties: { url: { type: 'string' } } },
          Issue: { type: 'object', properties: { state: { type: 'string', enum: ['a', 'b'] } } },
          IssueState: { type: 'object' },
        },
      },
    };
    expect(classNameCollisions(doc)).to.deep.equal([
      'sourcesettings: #/components/schemas/Source_Settings, #/components/schemas/SourceSettings',
      'issuestate: #/components/schemas/Issue/properties/state, #/components/schemas/IssueState',
    ]);
  });

  it('leaves no two schemas of the served document with one class name', () => {
    expect(classNameCollisions(buildOpenApiDocument(ROUTES, 'test'))).to.deep.equal([]);
  });
});
