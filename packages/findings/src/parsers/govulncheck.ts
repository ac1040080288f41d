import { Finding } from '../model';
import { arr, isObj, obj, str, uniq, vulnIds } from '../normalize';
import { each, first, hasKeys, isArrayLikeOf, JsonFormat, ParseContext } from './common';

/**
 * govulncheck -json. Since 1.0 a stream of messages (`config`, `progress`, `osv`, `finding`), written
 * as JSON lines or, by some wrappers, as one array; before 1.0 one object whose `Vulns` hold an OSV
 * entry per vulnerable symbol (0.x: per module in `Vulns[].Modules`).
 *
 * One finding per Go vulnerability (OSV id) and module: govulncheck reports a vulnerability once per
 * call path or symbol, and its own text output groups them per OSV id, as its users read it. The Go
 * vulnerability database gives no severity, so every finding is info; whether the code calls the
 * vulnerable symbol, imports its package or only requires its module is kept as a tag.
 */
interface Group {
  id: string;
  module: string;
  version?: string;
  fixed?: string;
  packages: string[];
  reach: string;
}

const REACH_ORDER = ['required', 'imported', 'called'];

function finding(osv: Record<string, unknown>, g: Group, ctx: ParseContext): Finding {
  const refs = arr(osv.references).map((r) => str(obj(r).url));
  const dbUrl = arr(osv.affected)
    .map((a) => str(obj(obj(a).database_specific).url))
    .find(Boolean);
  return ctx.finding({
    tool: 'govulncheck',
    toolCategory: 'sca',
    ruleId: g.id,
    title: `${g.id} in ${g.module}${g.version ? ` ${g.version}` : ''}${str(osv.summary) ? `: ${String(osv.summary)}` : ''}`,
    description: str(osv.details) ?? str(osv.summary),
    severity: 'info',
    tags: [g.reach],
    vulnerabilityIds: vulnIds([...arr(osv.aliases), g.id]),
    references: uniq([dbUrl ?? `https://pkg.go.dev/vuln/${g.id}`, ...refs].filter((u): u is string => !!u)),
    mitigation: g.fixed ? `Upgrade ${g.module} to ${g.fixed}` : undefined,
    library: { name: g.module, version: g.version, fixedVersion: g.fixed, ecosystem: 'go' },
    filePath: g.packages[0],
  });
}

function group(groups: Map<string, Group>, g: Group): void {
  const key = `${g.id}\u0000${g.module}`;
  const had = groups.get(key);
  if (!had) groups.set(key, g);
  else {
    had.packages = uniq([...had.packages, ...g.packages]);
    had.fixed ??= g.fixed;
    had.version ??= g.version;
    if (REACH_ORDER.indexOf(g.reach) > REACH_ORDER.indexOf(had.reach)) had.reach = g.reach;
  }
}

/** 1.0 and later: findings refer to the OSV entries sent before them by id. */
function* stream(doc: unknown, ctx: ParseContext): Generator<Finding> {
  const osvs = new Map<string, Record<string, unknown>>();
  const groups = new Map<string, Group>();
  for (const m of each(doc)) {
    const msg = obj(m);
    if (isObj(msg.osv)) osvs.set(str(msg.osv.id) ?? '', msg.osv);
    if (!isObj(msg.finding)) continue;
    const f = msg.finding;
    const frame = obj(arr(f.trace)[0]);
    group(groups, {
      id: str(f.osv) ?? 'unknown',
      module: str(frame.module) ?? 'unknown',
      version: str(frame.version),
      fixed: str(f.fixed_version),
      packages: [str(frame.package)].filter((p): p is string => !!p),
      reach: str(frame.function) ? 'called' : str(frame.package) ? 'imported' : 'required',
    });
  }
  for (const g of groups.values()) yield finding(osvs.get(g.id) ?? {}, g, ctx);
}

/** Before 1.0: `Vulns` entries with the OSV entry inline; the module's version is in `Modules` (or, in 0.x, in the entry). */
function* legacy(doc: Record<string, unknown>, ctx: ParseContext): Generator<Finding> {
  const versions = new Map<string, string | undefined>(
    arr(doc.Modules).map((m) => [str(obj(m).Path) ?? '', str(obj(m).Version)]),
  );
  const osvs = new Map<string, Record<string, unknown>>();
  const groups = new Map<string, Group>();
  for (const v of each(doc.Vulns)) {
    const vuln = obj(v);
    const osv = obj(vuln.OSV);
    const id = str(osv.id) ?? 'unknown';
    osvs.set(id, osv);
    const modules = isObj(vuln) && Array.isArray(vuln.Modules) ? vuln.Modules.map(obj) : [vuln];
    for (const m of modules) {
      const module = str(m.ModPath) ?? str(m.Path) ?? 'unknown';
      const packages = [str(m.PkgPath), ...arr(m.Packages).map((p) => str(obj(p).Path))].filter(
        (p): p is string => !!p,
      );
      const called =
        (m.CallSink !== undefined && m.CallSink !== 0) || arr(m.Packages).some((p) => arr(obj(p).CallStacks).length);
      group(groups, {
        id,
        module,
        version: str(m.FoundVersion) ?? versions.get(module),
        fixed: str(m.FixedVersion),
        packages,
        reach: called ? 'called' : packages.length ? 'imported' : 'required',
      });
    }
  }
  for (const g of groups.values()) yield finding(osvs.get(g.id) ?? {}, g, ctx);
}

const isMessage = (m: unknown): boolean => hasKeys(m, 'config') && hasKeys(obj(m).config, 'protocol_version');

export const govulncheck: JsonFormat = {
  id: 'govulncheck',
  title: 'govulncheck -json (message stream; older Vulns object)',
  testedWith: 'govulncheck 0.0.0-2022 (Vulns object), 1.0.0 and 1.0.1 (message stream)',
  kind: 'json',
  detect: (doc) =>
    isMessage(doc) ||
    isArrayLikeOf(doc, isMessage) ||
    (hasKeys(doc, 'Vulns') && (hasKeys(doc, 'Calls', 'Imports') || hasKeys(obj(first(obj(doc).Vulns)), 'OSV'))),
  parse: (doc, ctx) => (hasKeys(doc, 'Vulns') ? legacy(obj(doc), ctx) : stream(isMessage(doc) ? [doc] : doc, ctx)),
};
