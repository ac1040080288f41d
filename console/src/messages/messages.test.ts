import { expect } from 'chai';
import { MESSAGE_MODULES as MODULES } from '.';

// i18n.tsx merges the modules into one dictionary: a key in two modules would silently take one text.

describe("the console's messages", () => {
  it('name each key in one module only', () => {
    const owner = new Map<string, string>();
    const twice: string[] = [];
    for (const [name, m] of Object.entries(MODULES)) {
      for (const key of Object.keys(m.en)) {
        if (owner.has(key)) twice.push(`${key} (${owner.get(key)}, ${name})`);
        owner.set(key, name);
      }
    }
    expect(twice).to.deep.equal([]);
  });

  it('have every key in Russian too, with the same placeholders', () => {
    for (const m of Object.values(MODULES)) {
      const en = m.en as Record<string, string>;
      const ru = m.ru as Record<string, string>;
      expect(Object.keys(ru).sort()).to.deep.equal(Object.keys(en).sort());
      for (const key of Object.keys(en))
        expect(ru[key].match(/\{\d\}/g)?.sort() ?? [], key).to.deep.equal(en[key].match(/\{\d\}/g)?.sort() ?? []);
    }
  });
});
