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
import { buildOpenApiDocument } from './openapi';
import { ROUTES } from './route-table';
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
