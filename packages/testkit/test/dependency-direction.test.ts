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

/** A service's source files (tests aside) with the files of the service each one imports by relative path. */
function relativeImports(dir: string): Map<string, string[]> {
  const src = path.join(ROOT, dir, 'src');
  const graph = new Map<string, string[]>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name)) {
        const targets = [...fs.readFileSync(full, 'utf8').matchAll(/from '(\.[^']+)'/g)].flatMap((m) => {
          const base = path.resolve(d, m[1]);
          const file = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
          return file ? [path.relative(src, file)] : [];
        });
        graph.set(path.relative(src, full), targets);
      }
    }
  };
  walk(src);
  return graph;
}

/** Each import cycle once, as the files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const visit = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at >= 0) {
      const cycle = trail.slice(at);
      found.set([...cycle].sort().join(' '), cycle);
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    done.add(file);
  };
  const done = new Set<string>();
  for (const file of graph.keys()) visit(file, []);
  return [...found.values()];
}

/** What a store may import by relative path: other stores and the domain model, nothing that uses stores. */
const STORE_MAY_IMPORT = /^(store|domain)\//;

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

  it("a service's stores import only other stores and the domain, never the application, handlers or consumers above them", () => {
    const offenders = workspaces('services').flatMap((w) =>
      [...relativeImports(w.dir)]
        .filter(([file]) => file.startsWith('store/'))
        .flatMap(([file, targets]) =>
          targets.filter((t) => !STORE_MAY_IMPORT.test(t)).map((t) => `${w.dir}: ${file} -> ${t}`),
        ),
    );
    expect(offenders).to.deep.equal([]);
  });

  it("a service's HTTP handlers and views reach the stores only through the application classes: http/ imports nothing but types from store/", () => {
    const offenders = workspaces('services').flatMap((w) => {
      const dir = path.join(ROOT, w.dir, 'src', 'http');
      if (!fs.existsSync(dir)) return [];
      return fs
        .readdirSync(dir)
        .filter((f) => /\.ts$/.test(f) && !/\.test\.ts$/.test(f))
        .flatMap((f) =>
          [
            ...fs
              .readFileSync(path.join(dir, f), 'utf8')
              .matchAll(/^import (type )?\{([^}]*)\} from '\.\.\/store\/[^']+'/gm),
          ]
            .filter(
              ([, typeOnly, names]) => !typeOnly && names.split(',').some((n) => n.trim() && !/^type /.test(n.trim())),
            )
            .map(([line]) => `${w.dir}/src/http/${f}: ${line}`),
        );
    });
    expect(offenders).to.deep.equal([]);
  });

  it("a service's source files import each other without cycles", () => {
    const found = workspaces('services').flatMap((w) =>
      cycles(relativeImports(w.dir)).map((c) => `${w.dir}: ${[...c, c[0]].join(' -> ')}`),
    );
    expect(found).to.deep.equal([]);
  });
});
