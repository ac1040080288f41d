import { generateKeyPairSync } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import { expect } from 'chai';
import {
  allowedOnlyWhen,
  atLeastOne,
  emptyWhenContains,
  FieldRule,
  nonEmptyWhen,
  patternByValue,
  requiredWith,
  withFieldRules,
} from './field-rules';
import { LICENSE_FORM_PROBLEM, readLicense } from './license';
import { buildOpenApiDocument } from './openapi';
import { toolCreateBody } from './schemas/catalog';
import { userCreateBody } from './schemas/identity';
import { reportFilter } from './schemas/reporting';
import { trackerBody, trackerUpdateBody } from './schemas/trackers';
import { ROUTES } from './route-table';
import { sourceType } from './source-types';
import { toolType } from './tool-types';
import { z } from './zod';

const ajv = new Ajv2020({ strict: false });

/** Whether the rule's check and its JSON Schema agree on each value: both accept it, or both refuse it. */
function agreement(rule: FieldRule, values: Record<string, unknown>[]) {
  const validate = ajv.compile({ type: 'object', ...rule.schema });
  return values.map((v) => ({ value: v, checked: rule.problem(v) === undefined, stated: validate(v) }));
}

function expectAgreement(rule: FieldRule, accepted: Record<string, unknown>[], refused: Record<string, unknown>[]) {
  for (const row of agreement(rule, accepted))
    expect(row, JSON.stringify(row.value)).to.include({ checked: true, stated: true });
  for (const row of agreement(rule, refused))
    expect(row, JSON.stringify(row.value)).to.include({ checked: false, stated: false });
}

describe('field rules: the check and the JSON Schema agree', () => {
  it('requiredWith', () => {
    expectAgreement(
      requiredWith('name', 'value', 'is required'),
      [{}, { name: 'h' }, { name: 'h', value: 't' }],
      [{ value: 't' }],
    );
  });

  it('allowedOnlyWhen', () => {
    expectAgreement(
      allowedOnlyWhen('why', 'state', ['no'], 'only with no'),
      [{ state: 'no', why: 'x' }, { state: 'yes' }, { state: 'yes', why: null }, { state: 'no' }],
      [{ state: 'yes', why: 'x' }],
    );
  });

  it('nonEmptyWhen', () => {
    expectAgreement(
      nonEmptyWhen('codes', 'all', false, 'is required'),
      [{}, { all: true }, { all: true, codes: [] }, { all: false, codes: ['a'] }],
      [{ all: false }, { all: false, codes: [] }],
    );
  });

  it('atLeastOne', () => {
    expectAgreement(
      atLeastOne(['a', 'b'], 'needs a or b'),
      [{ a: 'x' }, { b: 7 }, { a: '', b: 'y' }],
      [{}, { a: '' }, { a: '', b: '' }],
    );
  });

  it('patternByValue', () => {
    const rule = patternByValue('v', 't', {
      unit: { pattern: /^0*(\.[0-9]+|0(\.[0-9]*)?|1(\.0*)?)$/, message: 'from 0 to 1' },
      digit: { pattern: /^[0-9]$/, message: 'a digit' },
    });
    expectAgreement(
      rule,
      [{ t: 'unit', v: '0.5' }, { t: 'unit', v: '1' }, { t: 'digit', v: '7' }, { t: 'other' }, { t: 'other', v: 'x' }],
      [{ t: 'unit', v: '2' }, { t: 'unit' }, { t: 'digit', v: '10' }],
    );
  });

  it('emptyWhenContains', () => {
    expectAgreement(
      emptyWhenContains(['tags', 'codes'], 'roles', 'admin', 'no scope with admin'),
      [{ roles: ['admin'] }, { roles: ['admin'], tags: [] }, { roles: ['dev'], codes: ['p'] }, { codes: ['p'] }],
      [
        { roles: ['admin'], tags: ['t'] },
        { roles: ['dev', 'admin'], codes: ['p'] },
      ],
    );
  });

  it('refuses through zod what the rule refuses, naming the field', () => {
    const schema = withFieldRules(z.object({ name: z.string().optional(), value: z.string().optional() }).strict(), [
      requiredWith('name', 'value', 'is required with value'),
    ]);
    const result = schema.safeParse({ value: 't' });
    expect(result.success).to.equal(false);
    expect(result.error?.issues.map((i) => [i.path, i.message])).to.deep.equal([[['name'], 'is required with value']]);
    expect(schema.safeParse({ value: 't', name: 'h' }).success).to.equal(true);
  });
});

describe('field rules in the OpenAPI document', () => {
  const schemas = (buildOpenApiDocument(ROUTES, 'test') as { components: { schemas: Record<string, object> } })
    .components.schemas;

  it('states the rules of the bodies that carry them', () => {
    expect(schemas.CreateNotifierInputSettings).to.deep.include({
      dependentRequired: { auth_header_value: ['auth_header_name'] },
    });
    expect(schemas.SetIssueAnalysisInput).to.have.keys([
      'type',
      'properties',
      'required',
      'additionalProperties',
      'if',
      'else',
    ]);
    expect(schemas.CreateSecurityRuleInputRuleParams).to.include.keys('not', 'if', 'then');
    expect(schemas.CreateConditionInput).to.include.keys('if', 'then', 'else');
    expect(schemas.GroupCreate).to.include.keys('if', 'then');
    expect(schemas.RoleCreateRoles).to.have.nested.property('propertyNames.enum').that.includes('catalog.sources');
    expect(schemas.CheckCreate).not.to.have.nested.property('properties.check_group_id');
  });
});

describe('bodies whose rules are stated: the validation and the document agree', () => {
  const components = (buildOpenApiDocument(ROUTES, 'test') as { components: object }).components;
  // Formats (email, uri) are patterns or checks of their own here; ajv would only warn of them.
  const bodies = new Ajv2020({ strict: false, validateFormats: false });
  const stated = (name: string) => bodies.compile({ $ref: `#/components/schemas/${name}`, components });
  const expectBoth = (schema: z.ZodType, name: string, accepted: object[], refused: object[]) => {
    const validate = stated(name);
    for (const value of accepted)
      expect({ value, checked: schema.safeParse(value).success, stated: validate(value) }).to.include({
        checked: true,
        stated: true,
      });
    for (const value of refused)
      expect({ value, checked: schema.safeParse(value).success, stated: validate(value) }).to.include({
        checked: false,
        stated: false,
      });
  };

  it('a new user: a local password and its confirmation, none for a directory user', () => {
    const password = 'correct horse battery';
    expectBoth(
      userCreateBody,
      'UserCreate',
      [
        { username: 'u', password, password_confirmation: password },
        { username: 'u', active_directory: true },
        { username: 'u', active_directory: false, password, password_confirmation: 'typed differently' },
      ],
      [
        { username: 'u' },
        { username: 'u', active_directory: false },
        { username: 'u', password },
        { username: 'u', active_directory: true, password, password_confirmation: password },
      ],
    );
  });

  it('a tracker: the credentials its type takes', () => {
    const base = { name: 't', url: 'https://tracker.example.com' };
    expectBoth(
      trackerBody,
      'TrackerCreate',
      [
        { ...base, type: 'redmine', credentials: { api_key: 'k' } },
        { ...base, type: 'redmine', credentials: { username: 'u', password: 'p' } },
        { ...base, type: 'jira', credentials: { token: 't' } },
        { ...base, type: 'jira', credentials: { username: 'u', password: 'p' } },
      ],
      [
        base,
        { ...base, type: 'redmine' },
        { ...base, type: 'redmine', credentials: { token: 't' } },
        { ...base, type: 'redmine', credentials: { username: 'u' } },
        { ...base, type: 'jira', credentials: { api_key: 'k' } },
        { ...base, type: 'jira', credentials: { token: 't', api_key: 'k' } },
      ],
    );
    expectBoth(
      trackerUpdateBody,
      'TrackerUpdate',
      [{ ...base, type: 'jira' }],
      [{ ...base, type: 'jira', credentials: { password: 'p' } }],
    );
  });

  it('a report filter: a custom period with its start, a range only with period custom or all, from 1970 on', () => {
    expectBoth(
      reportFilter,
      'CreateReportInputFilter',
      [
        {},
        { period: 'custom', from: '2026-01-01' },
        { period: 'all', to: '2026-01-01T00:00:00Z' },
        { from: '1970-01-02' },
        { period: 'week' },
      ],
      [
        { period: 'custom' },
        { period: 'custom', to: '2026-01-01' },
        { period: 'week', from: '2026-01-01' },
        { from: '1969-12-31' },
      ],
    );
  });

  it('a new tool (or source): project codes by its access type', () => {
    const tool = { type_id: 1, settings: {} };
    expectBoth(
      toolCreateBody,
      'ToolCreate',
      [
        tool,
        { ...tool, access_type: 'global', project_codes: [] },
        { ...tool, access_type: 'project', project_codes: ['web'] },
      ],
      [
        { ...tool, project_codes: ['web'] },
        { ...tool, access_type: 'project' },
        { ...tool, access_type: 'project', project_codes: [] },
      ],
    );
  });

  it('a license: its form', () => {
    const install = ROUTES.find((r) => r.operationId === 'installLicense')?.request?.body as z.ZodType;
    expectBoth(
      install,
      'LicenseInstall',
      [{ license: 'BWL1.e30.c2ln' }, { license: ' BWL1.a b.c \n' }],
      [
        { license: 'BWL1.a.' },
        { license: 'BWL1.a. ' },
        { license: 'BWL1..c' },
        { license: 'BWL1.a.b.c' },
        { license: 'x' },
      ],
    );
    for (const license of ['BWL1.a.', 'BWL1.a. ', 'BWL1..c', 'BWL1.a.b.c', 'x'])
      expect(() => readLicense(license, generateKeyPairSync('ed25519').publicKey)).to.throw(LICENSE_FORM_PROBLEM);
  });

  const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbg==\n-----END OPENSSH PRIVATE KEY-----';

  it('a source\u2019s settings as its type takes them: the schema the catalog checks them with', () => {
    const http = { url: 'https://git.example.com/app.git' };
    expectBoth(
      sourceType(1)!.schema,
      'GitHttpSourceSettings',
      [
        http,
        { ...http, auth_method: 'Anonymous', login: '' },
        { ...http, auth_method: 'Anonymous', login: 'bob' },
        { ...http, login: 'bob', password: 'pw' },
        { ...http, auth_method: 'Login/Password', login: 'bob', password: 'pw', branch_name: 'main' },
        { ...http, login: '', password: '' },
      ],
      [
        {},
        { url: 'ssh://git@git.example.com/app.git' },
        { url: 'git@git.example.com:app.git' },
        { ...http, auth_method: 'SSH key' },
        { ...http, auth_method: 'Login/Password', login: 'bob' },
        { ...http, login: 'bob' },
        { ...http, password: 'pw' },
        { ...http, login: '', password: 'pw' },
      ],
    );
    const ssh = { url: 'git@git.example.com:org/app.git', ssh_private_key: KEY };
    expectBoth(
      sourceType(2)!.schema,
      'GitSshSourceSettings',
      [ssh, { ...ssh, url: 'ssh://git@git.example.com:2222/org/app.git', auth_method: 'SSH key', login: 'ignored' }],
      [
        { url: ssh.url },
        { ...ssh, url: 'https://git.example.com/app.git' },
        { ...ssh, ssh_private_key: 'not a key' },
        { ...ssh, auth_method: 'Anonymous' },
      ],
    );
    expectBoth(
      sourceType(2)!.changes,
      'GitSshSourceSettingsChanges',
      [{}, { branch_name: 'dev' }],
      [{ url: 'https://git.example.com/app.git' }],
    );
  });

  it('a new source: the settings of the type it names', () => {
    const validate = stated('SourceCreate');
    const source = (source_type_id: number, settings: object) => ({ name: 's', source_type_id, settings });
    const http = { url: 'https://git.example.com/app.git' };
    const ssh = { url: 'git@git.example.com:org/app.git', ssh_private_key: KEY };
    expect([validate(source(1, http)), validate(source(2, ssh))]).to.deep.equal([true, true]);
    expect([validate(source(1, ssh)), validate(source(2, http))]).to.deep.equal([false, false]);
    const update = stated('SourceUpdate');
    expect([update({ source_type_id: 2, settings: { branch_name: 'x' } }), update({ settings: http })]).to.deep.equal([
      true,
      true,
    ]);
    expect(update({ source_type_id: 2, settings: http })).to.equal(false);
  });

  it('a tool\u2019s settings as its type takes them, and a new tool the settings of the type it names', () => {
    expectBoth(
      toolType(1)!.settings,
      'SemgrepToolSettings',
      [{}, { extra_args: ['--severity=ERROR', '--exclude=tests/**'] }, { url: 'dropped', resources: { cpu: '1' } }],
      [{ extra_args: ['--config=x'] }, { extra_args: ['--exclude=../x'] }, { project_key: 'k' }],
    );
    const server = { url: 'https://sonar.example.com', api_token: 't' };
    expectBoth(
      toolType(10)!.settings,
      'ServerToolSettings',
      [server, { ...server, auth_method: 'Api Token', project_key: 'k' }],
      [{ url: server.url }, { ...server, url: 'ftp://sonar.example.com' }, { ...server, extra_args: [] }],
    );
    const validate = stated('ToolCreate');
    const sonar = { ...server, project_key: 'k' };
    expect([10, 11, 20, 1].map((type_id) => validate({ type_id, settings: sonar }))).to.deep.equal([
      true,
      true,
      false,
      false,
    ]);
    expect(validate({ type_id: 20, settings: { format: 'sarif' } })).to.equal(true);
  });
});
