import { expect } from 'chai';
import { AppError, parseOrThrow } from '@bulwark/platform';
import { bracketQuery, isoDateTime, nonBlank, NOT_BLANK_PATTERN, WEB_URL_PATTERN, webUrl, z } from './index';
import { buildOpenApiDocument } from './openapi';
import { ROUTES } from './route-table';

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

describe('date-times in the OpenAPI document', () => {
  it('states with a pattern the offsets and years the validation takes, beside format date-time', () => {
    const doc = buildOpenApiDocument(ROUTES, 'test') as {
      paths: Record<
        string,
        Record<string, { parameters: { name: string; schema: { format?: string; pattern?: string } }[] }>
      >;
    };
    const documented = doc.paths['/api/v1/errors-log'].get.parameters.find(
      (p) => p.name === 'filter[occurred_at_start]',
    );
    expect(documented?.schema.format).to.equal('date-time');
    const pattern = new RegExp(documented?.schema.pattern ?? '(?!)');
    // Each takes `format: date-time`; the pattern must tell apart those the validation refuses.
    const values = [
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.123456+15:59',
      '2026-01-01T00:00:00-15:00',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '2026-01-01T00:00:00z',
      '2026-01-01T00:00:00+16:00',
      '2026-01-01T00:00:00-23:59',
      '0000-06-01T00:00:00Z',
    ];
    const byPattern = values.map((v) => pattern.test(v));
    expect(byPattern).to.deep.equal(values.map((v) => isoDateTime.safeParse(v).success));
    expect(byPattern.filter(Boolean)).to.have.length(5);
  });
});

describe('what the document says of text and web addresses, beside what validation takes', () => {
  const samples = ['a', ' a ', '\u00a0', ' ', '\t\n', '\ufeff', '\u3000x', 'x\u0000', ''];

  it('says text is not blank exactly when trimmed text of 1 character or more is taken', () => {
    const pattern = new RegExp(NOT_BLANK_PATTERN);
    const schema = nonBlank(10);
    for (const s of samples.filter((v) => !v.includes('\u0000')))
      expect(pattern.test(s), JSON.stringify(s)).to.equal(schema.safeParse(s).success);
    expect(pattern.test('x\u0000')).to.equal(false);
  });

  it('says of a web address only what z.url with http(s) takes', () => {
    const pattern = new RegExp(WEB_URL_PATTERN);
    const urls = [
      'https://example.com',
      'HTTP://a.b:8080/p/q',
      'http://x/',
      'ldaps://dc1.example.com:636',
      'ftp://example.com',
      'http://1.2.3.999',
      'http://',
    ];
    for (const url of urls.filter((u) => pattern.test(u))) expect(webUrl().safeParse(url).success, url).to.equal(true);
    expect(urls.filter((u) => pattern.test(u))).to.deep.equal([
      'https://example.com',
      'HTTP://a.b:8080/p/q',
      'http://x/',
    ]);
  });
});
