import Ajv2020 from 'ajv/dist/2020';
import { expect } from 'chai';
import { ISSUE_VIEW_PARAMS, ISSUE_VIEW_QUERY_PATTERN, issueViewBody } from './issue-views';

const stated = new Ajv2020({ strict: false }).compile({ type: 'string', pattern: ISSUE_VIEW_QUERY_PATTERN.source });
const checked = (query: string) => issueViewBody.safeParse({ name: 'v', query }).success;

describe('a saved view query: the pattern the document states is the check', () => {
  it('takes every parameter as the console writes it (URLSearchParams), with its brackets plain, or alone', () => {
    const written = new URLSearchParams(ISSUE_VIEW_PARAMS.map((name) => [name, 'a b&c=d'])).toString();
    for (const query of [written, '', 'sort', 'filter[severity]=high&&sort=-severity&', '&limit=25', 'sort=a=b'])
      expect({ query, checked: checked(query), stated: stated(query) }).to.include({ checked: true, stated: true });
  });

  it('refuses a name it does not keep, or one written with other characters encoded', () => {
    for (const query of [
      'cursor=abc',
      'sort=x&page=2',
      '%73ort=x',
      'filter%5bseverity]=high&=x',
      'filter[nope]=1',
      'sort=\u0000',
    ])
      expect({ query, checked: checked(query), stated: stated(query) }).to.include({ checked: false, stated: false });
  });
});
