import { Finding, FindingInit } from '../model';
import { addCvss, cvssSeverity, obj, severityOf, str, vulnIds } from '../normalize';
import { each, hasKeys, isArrayLikeOf, JsonFormat, ParseContext, TextFormat } from './common';

/**
 * bundler-audit (`bundle-audit check`): the text output, a block of `Key: value` lines per
 * vulnerable gem and advisory (0.6 writes `Advisory:`, 0.7 and later `CVE:` and `GHSA:`), and the
 * JSON of `--format json` (0.8 and later). One finding per gem version and advisory. Insecure gem
 * sources (`Insecure Source URI found`, `insecure_source`) are findings too: bundler-audit fails on
 * them. Criticality `Unknown` or missing (advisories without CVSS) is medium.
 */
interface Advisory {
  gem: string;
  version?: string;
  ids: string[];
  criticality?: string;
  url?: string;
  title?: string;
  solution?: string;
  description?: string;
  cvssV3?: unknown;
  cvssV2?: unknown;
}

/** bundler-audit writes `Unknown` where the advisory has no CVSS score: that is not "info". */
const criticalityOf = (word: string | undefined) => (/^unknown$/i.test(word ?? '') ? undefined : severityOf(word));

function advisoryFinding(a: Advisory, ctx: ParseContext): Finding {
  const id = a.ids[0] ?? 'unknown';
  const init: FindingInit = {
    tool: 'bundler-audit',
    toolCategory: 'sca',
    ruleId: id,
    title: `Gem ${a.gem}: ${a.title ?? id} [${id}]`,
    description: a.description ?? a.title,
    severity: criticalityOf(a.criticality) ?? 'medium',
    toolSeverity: a.criticality,
    vulnerabilityIds: vulnIds(a.ids),
    references: a.url ? [a.url] : [],
    mitigation: a.solution,
    library: { name: a.gem, version: a.version, ecosystem: 'rubygems' },
    filePath: 'Gemfile.lock',
  };
  // The JSON gives CVSS base scores without vectors.
  addCvss(init, undefined, a.cvssV3 ?? a.cvssV2);
  if (!criticalityOf(a.criticality)) init.severity = cvssSeverity(init) ?? 'medium';
  return ctx.finding(init);
}

function insecureSource(uri: string, ctx: ParseContext): Finding {
  return ctx.finding({
    tool: 'bundler-audit',
    toolCategory: 'sca',
    ruleId: 'insecure-source',
    title: `Insecure gem source URI: ${uri}`,
    description: 'Gems fetched over an unencrypted connection can be tampered with in transit.',
    severity: 'medium',
    cwes: [319],
    mitigation: 'Use an https source for the gems.',
    filePath: 'Gemfile.lock',
    locator: uri,
  });
}

function* parseText(lines: Iterable<string>, ctx: ParseContext): Generator<Finding> {
  let block: Record<string, string> = {};
  const flush = function* (): Generator<Finding> {
    if (block.Name) {
      yield advisoryFinding(
        {
          gem: block.Name,
          version: block.Version,
          ids: [block.CVE, block.GHSA, block.Advisory].filter((x): x is string => !!x),
          criticality: block.Criticality,
          url: block.URL,
          title: block.Title,
          solution: block.Solution,
        },
        ctx,
      );
    }
    block = {};
  };
  for (const l of lines) {
    const insecure = /^Insecure Source URI found:\s*(\S+)/.exec(l);
    if (insecure) yield insecureSource(insecure[1], ctx);
    const m = /^([A-Za-z]+):\s?(.*)$/.exec(l);
    if (m && !insecure) {
      if (m[1] === 'Name') yield* flush();
      block[m[1]] = m[2].trim();
    } else if (l.trim() === '') yield* flush();
  }
  yield* flush();
}

function* parseJson(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const r of each(obj(doc).results)) {
    const res = obj(r);
    if (res.type === 'insecure_source') {
      yield insecureSource(str(res.source) ?? 'unknown', ctx);
      continue;
    }
    const gem = obj(res.gem);
    const a = obj(res.advisory);
    const patched = Array.isArray(a.patched_versions) ? a.patched_versions.map(String) : [];
    yield advisoryFinding(
      {
        gem: str(gem.name) ?? 'unknown',
        version: str(gem.version),
        ids: [str(a.cve) && `CVE-${String(a.cve)}`, str(a.ghsa) && `GHSA-${String(a.ghsa)}`, str(a.id)].filter(
          (x): x is string => !!x,
        ),
        criticality: str(a.criticality),
        url: str(a.url),
        title: str(a.title),
        description: str(a.description),
        solution: patched.length ? `upgrade to ${patched.join(', ')}` : undefined,
        cvssV3: a.cvss_v3,
        cvssV2: a.cvss_v2,
      },
      ctx,
    );
  }
}

export const bundlerAudit: TextFormat = {
  id: 'bundler-audit',
  title: 'bundler-audit check text output',
  testedWith: 'bundler-audit 0.6.1 and 0.7+',
  kind: 'text',
  acceptsEmpty: true,
  detect: (head) =>
    /^Name: .+\r?\nVersion: .*\r?\n(Advisory|CVE|GHSA): /m.test(head) ||
    /^Insecure Source URI found: /m.test(head) ||
    /^\s*No vulnerabilities found\s*$/.test(head),
  parse: parseText,
};

export const bundlerAuditJson: JsonFormat = {
  id: 'bundler-audit-json',
  title: 'bundler-audit check --format json',
  testedWith: 'bundler-audit 0.9',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'version', 'created_at', 'results') &&
    isArrayLikeOf(obj(doc).results, (r) => hasKeys(r, 'type') && ('gem' in obj(r) || 'source' in obj(r)), true),
  parse: parseJson,
};
