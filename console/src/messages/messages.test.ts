import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { MESSAGE_MODULES } from '.';
import { LAZY_MESSAGE_MODULES } from './lazy';

// The entry's modules and those the page chunks add: one dictionary once loaded, so one set of rules.
const MODULES = { ...MESSAGE_MODULES, ...LAZY_MESSAGE_MODULES };

/** The console's code outside the messages, as one text. */
function consoleCode(): string {
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  return walk(path.join(__dirname, '..'))
    .filter((f) => /\.tsx?$/.test(f) && !f.startsWith(__dirname))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
}

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

  // A key is used when the code names it, or names its family in a template (`sev_${severity}`), or
  // is a value the API returns that the code translates as it is (a gate verdict's status).
  it('are each used by the console', () => {
    const code = consoleCode();
    const fromApi = ['passed'];
    const unused = Object.values(MODULES)
      .flatMap((m) => Object.keys(m.en))
      .filter((key) => {
        if (fromApi.includes(key)) return false;
        const family = /^[a-z]+_/.exec(key)?.[0];
        return (
          !["'", '"', '`'].some((q) => code.includes(`${q}${key}${q}`)) && !(family && code.includes(`\`${family}\${`))
        );
      });
    expect(unused).to.deep.equal([]);
  });
});
