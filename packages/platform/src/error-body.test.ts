import { expect } from 'chai';
import { readErrorBody } from './error-body';
import { AppError } from './errors';

describe('reading an error body', () => {
  it("reads Bulwark's own body, details included", () => {
    const body = new AppError('invalid_request', 'Bad filter', [
      { field: 'filter[x]', problem: 'is unknown' },
    ]).toBody();
    expect(readErrorBody(JSON.stringify(body))).to.deep.equal({
      code: 'invalid_request',
      message: 'Bad filter',
      details: [{ field: 'filter[x]', problem: 'is unknown' }],
    });
    expect(readErrorBody('{"error":{"code":"not_found","message":"Issue not found"}}')?.details).to.deep.equal([]);
  });

  it('gives nothing for a proxy page, other JSON or a body of the wrong shape', () => {
    for (const text of ['<html>502</html>', '', 'null', '[]', '{"error":"x"}', '{"error":{"message":1,"code":"x"}}'])
      expect(readErrorBody(text), text).to.equal(undefined);
  });
});
