import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../../..');
const SERVICES = [
  '@bulwark/identity',
  '@bulwark/catalog',
  '@bulwark/scanning',
  '@bulwark/issues',
  '@bulwark/reporting',
  '@bulwark/notifications',
  '@bulwark/gateway',
];

interface Workspace {
  dir: string;
  name: string;
  deps: string[];
}

function workspaces(group: string): Workspace[] {
  return fs.readdirSync(path.join(ROOT, group)).flatMap((entry) => {
    const file = path.join(ROOT, group, entry, 'package.json');
    if (!fs.existsSync(file)) return [];
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return [
      { dir: `${group}/${entry}`, name: pkg.name, deps: Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }) },
    ];
  });
}

/** Every import specifier of a workspace's sources. */
function imports(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(e.name))
        for (const m of fs.readFileSync(full, 'utf8').matchAll(/from '([^']+)'/g))
          found.push(`${path.relative(ROOT, full)}: ${m[1]}`);
    }
  };
  walk(path.join(ROOT, dir, 'src'));
  return found;
}

describe('dependency direction', () => {
  it('only the composition root (packages/runtime) depends on a service', () => {
    const offenders = workspaces('packages')
      .filter((w) => w.name !== '@bulwark/runtime')
      .flatMap((w) => w.deps.filter((d) => SERVICES.includes(d)).map((d) => `${w.name} -> ${d}`));
    expect(offenders).to.deep.equal([]);
  });

  it('a service depends on no other service, by package or by relative path: they meet over gRPC and events', () => {
    const services = [...workspaces('services'), ...workspaces('.').filter((w) => w.name === '@bulwark/gateway')];
    expect(services.length).to.equal(SERVICES.length);
    const byPackage = services.flatMap((w) =>
      w.deps.filter((d) => SERVICES.includes(d) && d !== w.name).map((d) => `${w.name} -> ${d}`),
    );
    expect(byPackage).to.deep.equal([]);
    const byPath = services.flatMap((w) =>
      imports(w.dir).filter((i) => /'?\.\.\/\.\.\/(services|gateway|packages)\//.test(i.split(': ')[1])),
    );
    expect(byPath).to.deep.equal([]);
  });
});
