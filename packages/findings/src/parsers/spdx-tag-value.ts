import { Finding } from '../model';
import { ParseContext, TextFormat } from './common';
import { SpdxPackage, spdxFindings } from './spdx';

/**
 * SPDX 2.x tag-value SBOMs: `Tag: value` lines, multi-line values between `<text>` and `</text>`; a
 * `PackageName` line starts a package. Vulnerabilities are `ExternalRef: SECURITY advisory <url>`
 * lines of a package, read as in the JSON serialization (spdx.ts). Packages are read one at a time.
 */
function* parse(lines: Iterable<string>, ctx: ParseContext): Generator<Finding> {
  let pkg: SpdxPackage | undefined;
  let inText = false;
  for (const l of lines) {
    if (inText) {
      if (l.includes('</text>')) inText = false;
      continue;
    }
    const m = /^([A-Za-z]+):\s*(.*)$/.exec(l);
    if (!m) continue;
    const [, tag, raw] = m;
    if (raw.startsWith('<text>') && !raw.includes('</text>')) inText = true;
    const value = raw.replace(/^<text>|<\/text>$/g, '').trim();
    if (tag === 'PackageName') {
      if (pkg) yield* spdxFindings(pkg, ctx);
      pkg = { name: value, licenses: [], refs: [] };
    } else if (tag === 'FileName' || tag === 'SnippetSPDXID') {
      // Files and snippets follow the packages; their tags are not a package's.
      if (pkg) yield* spdxFindings(pkg, ctx);
      pkg = undefined;
    } else if (pkg) {
      if (tag === 'SPDXID') pkg.id = value;
      else if (tag === 'PackageVersion') pkg.version = value;
      else if (
        (tag === 'PackageLicenseConcluded' || tag === 'PackageLicenseDeclared') &&
        !/^(NOASSERTION|NONE)$/.test(value)
      ) {
        pkg.licenses.push(value);
      } else if (tag === 'ExternalRef') {
        const [category, type, locator] = value.split(/\s+/);
        pkg.refs.push({ category, type, locator });
      }
    }
  }
  if (pkg) yield* spdxFindings(pkg, ctx);
}

export const spdxTagValue: TextFormat = {
  id: 'spdx-tag-value',
  title: 'SPDX tag-value SBOM (vulnerabilities as advisory references)',
  testedWith: 'SPDX 2.2 and 2.3; sample: 2.3',
  kind: 'text',
  detect: (head) => /^SPDXVersion:\s*SPDX-2\.\d/m.test(head),
  parse,
};
