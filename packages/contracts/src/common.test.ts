import { expect } from 'chai';
import { AppError, parseOrThrow } from '@bulwark/platform';
import { bracketQuery, z } from './index';

const query = bracketQuery(
  z
    .object({
      page: z.coerce.number().default(1),
      'filter[version]': z.string().max(3).optional(),
      'search[name]': z.string().optional(),
    })
    .strict(),
);

describe('bracket query keys', () => {
  it('hands filter[…] and search[…] keys over as nested objects, each present even when none of its keys was given', () => {
    expect(parseOrThrow(query, { 'filter[version]': '1.2', 'search[name]': 'x', page: '2' }, 'query')).to.deep.equal({
      page: 2,
      filter: { version: '1.2' },
      search: { name: 'x' },
    });
    expect(parseOrThrow(query, {}, 'query')).to.deep.equal({ page: 1, filter: {}, search: {} });
  });

  it('names a bad or unknown key as the caller wrote it', () => {
    const problems = (value: Record<string, string>) => {
      try {
        parseOrThrow(query, value, 'query');
      } catch (err) {
        return (err as AppError).details;
      }
      return expect.fail('the query must be refused');
    };
    expect(problems({ 'filter[version]': 'toolong' }).map((p) => p.field)).to.deep.equal(['filter[version]']);
    expect(problems({ 'filter[nope]': 'a' })).to.deep.equal([{ field: 'filter[nope]', problem: 'unknown parameter' }]);
  });
});
