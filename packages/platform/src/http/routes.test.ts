import { expect } from 'chai';
import { pageOf } from './routes';

describe('lists filtered in memory', () => {
  it('answer one page and the total of the whole list', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    expect(pageOf(items, { page: 1, limit: 2 })).to.deep.equal({ items: ['a', 'b'], total: 5 });
    expect(pageOf(items, { page: 3, limit: 2 })).to.deep.equal({ items: ['e'], total: 5 });
    expect(pageOf(items, { page: 4, limit: 2 })).to.deep.equal({ items: [], total: 5 });
  });
});
