import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

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

/** Query-builder methods: `x('checks').where(...)` is a query wherever `x` came from. */
const BUILDER_METHODS = new Set(
  (
    'where andWhere orWhere whereIn whereNot whereNotIn whereNull whereNotNull whereRaw whereExists ' +
    'select distinct insert update delete del first pluck count sum min max increment decrement ' +
    'forUpdate forShare skipLocked noWait join leftJoin innerJoin onConflict returning orderBy ' +
    'groupBy having limit offset modify truncate union with column columns'
  ).split(' '),
);

/** Every table the services' and the platform's migrations create. */
function tables(): Set<string> {
  const found = new Set<string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.ts$/.test(e.name))
        for (const m of fs.readFileSync(full, 'utf8').matchAll(/createTable\('([a-z_]+)'/g)) found.add(m[1]);
    }
  };
  for (const w of workspaces('services')) walk(path.join(ROOT, w.dir, 'src', 'migrations'));
  walk(path.join(ROOT, 'packages/platform/src/db'));
  return found;
}

/**
 * The query-builder uses in one source file, as `line: text`: an import of knex, a `.raw(` call, or a
 * call naming a table (`db('checks')`, `db.from('checks as c')`) chained into a builder method. Syntax
 * only: the type checker would take minutes over every service.
 */
function queryBuilderUses(file: string, source: string, known: Set<string>): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) =>
    found.push(`${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().split('\n')[0]}`);
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      /^knex(\/|$)/.test(node.moduleSpecifier.text)
    )
      report(node);
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const first = node.arguments[0];
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'raw') report(node);
      else if (
        first &&
        ts.isStringLiteralLike(first) &&
        known.has(first.text.split(' ')[0]) &&
        ts.isPropertyAccessExpression(node.parent) &&
        node.parent.expression === node &&
        BUILDER_METHODS.has(node.parent.name.text)
      )
        report(node.parent);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Source files of a service or the gateway outside its `store/` and `migrations/` folders. */
function filesOutsideStores(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'store' && e.name !== 'migrations') walk(full);
      } else if (/\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name)) found.push(full);
    }
  };
  walk(path.join(ROOT, dir, 'src'));
  return found;
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

  it('the query-builder check finds an import of knex, a raw statement and a table query', () => {
    const planted = [
      "import type { Knex } from 'knex';",
      'export async function f(trx: Knex, id: string) {',
      "  await trx('checks').where({ id }).forUpdate().first();",
      "  await trx.from('scans').select('id');",
      "  await trx.raw('select 1');",
      "  count('projects', () => 1);",
      "  createHash('sha256').update(id);",
      '}',
    ].join('\n');
    expect(queryBuilderUses('planted.ts', planted, tables())).to.deep.equal([
      "1: import type { Knex } from 'knex';",
      "3: trx('checks').where",
      "4: trx.from('scans').select",
      "5: trx.raw('select 1')",
    ]);
  });

  it("only a service's store/ (and migrations/) call the query builder: the application and handlers call named store functions", () => {
    const services = [...workspaces('services'), ...workspaces('.').filter((w) => w.name === '@bulwark/gateway')];
    const known = tables();
    expect(known).to.include.keys('checks', 'issues', 'bulwark_outbox');
    const offenders = services.flatMap((w) =>
      filesOutsideStores(w.dir).flatMap((file) =>
        queryBuilderUses(file, fs.readFileSync(file, 'utf8'), known).map(
          (use) => `${path.relative(ROOT, file)}:${use}`,
        ),
      ),
    );
    expect(offenders).to.deep.equal([]);
  });

  it("a service's source files import each other without cycles", () => {
    const found = workspaces('services').flatMap((w) =>
      cycles(relativeImports(w.dir)).map((c) => `${w.dir}: ${[...c, c[0]].join(' -> ')}`),
    );
    expect(found).to.deep.equal([]);
  });
});
