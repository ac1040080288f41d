import { InputError } from '../errors';
import { Finding } from '../model';
import { arr, obj, str, vulnIds } from '../normalize';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

/**
 * SPDX 2.x SBOMs (JSON here; tag-value in spdx-tag-value.ts). SPDX 2 states vulnerabilities as a
 * package's external references of category SECURITY and type `advisory` (2.3 annex K): one finding
 * per package and advisory; `fix` references of the package give the mitigation. SPDX carries no
 * severity, so each finding is medium. Every package is an SBOM component. SPDX 3 (JSON-LD) is refused
 * with a message: its security profile is a different model.
 */
export interface SpdxPackage {
  id?: string;
  name: string;
  version?: string;
  licenses: string[];
  refs: { category?: string; type?: string; locator?: string }[];
}

export function* spdxFindings(pkg: SpdxPackage, ctx: ParseContext): Generator<Finding> {
  const purl = pkg.refs.find((r) => r.type === 'purl')?.locator;
  const cpe = pkg.refs.find((r) => /^cpe/.test(r.type ?? ''))?.locator;
  const fixes = pkg.refs.filter((r) => r.type === 'fix').map((r) => r.locator);
  ctx.components.push({
    name: pkg.name,
    version: pkg.version,
    purl,
    licenses: pkg.licenses.length ? pkg.licenses : undefined,
  });
  for (const ref of pkg.refs) {
    if (ref.category?.toUpperCase().replace('_', '-') !== 'SECURITY' || ref.type !== 'advisory' || !ref.locator)
      continue;
    const id = vulnIds([], ref.locator)[0] ?? ref.locator;
    yield ctx.finding({
      tool: 'spdx',
      toolCategory: 'sca',
      ruleId: id,
      title: `${pkg.name}${pkg.version ? `:${pkg.version}` : ''} | ${id}`,
      description: [
        `${id} in ${pkg.name}${pkg.version ? ` ${pkg.version}` : ''}`,
        purl && `**PURL:** ${purl}`,
        cpe && `**CPE:** ${cpe}`,
        pkg.licenses.length ? `**Licenses:** ${pkg.licenses.join(', ')}` : undefined,
      ]
        .filter(Boolean)
        .join('\n'),
      severity: 'medium',
      vulnerabilityIds: vulnIds([], id),
      references: [ref.locator],
      mitigation: fixes.length
        ? `upgrade ${pkg.name}: ${fixes.join(', ')}`
        : `upgrade ${pkg.name} to a version without ${id}`,
      library: { name: pkg.name, version: pkg.version, purl },
      locator: `${pkg.id ?? pkg.name}|${id}`,
    });
  }
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const p of each(obj(doc).packages)) {
    const pkg = obj(p);
    yield* spdxFindings(
      {
        id: str(pkg.SPDXID),
        name: str(pkg.name) ?? 'unknown',
        version: str(pkg.versionInfo),
        licenses: [str(pkg.licenseConcluded), str(pkg.licenseDeclared)].filter(
          (l): l is string => !!l && l !== 'NOASSERTION' && l !== 'NONE',
        ),
        refs: arr(pkg.externalRefs).map((r) => ({
          category: str(obj(r).referenceCategory),
          type: str(obj(r).referenceType),
          locator: str(obj(r).referenceLocator),
        })),
      },
      ctx,
    );
  }
}

export const spdxJson: JsonFormat = {
  id: 'spdx-json',
  title: 'SPDX JSON SBOM (vulnerabilities as advisory references)',
  testedWith: 'SPDX 2.2 and 2.3; syft 1.50 output (SPDX 2.3)',
  kind: 'json',
  detect: (doc) => {
    const version = str(obj(doc).spdxVersion);
    if (version && /^SPDX-3/.test(version)) {
      throw new InputError(
        `${version} document: Bulwark does not support SPDX 3 yet; export SPDX 2.3 JSON or tag-value`,
      );
    }
    return hasKeys(doc, 'spdxVersion', 'SPDXID');
  },
  parse,
};
