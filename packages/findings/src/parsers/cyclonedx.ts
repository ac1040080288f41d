import { Component, Finding, FindingInit, Severity } from '../model';
import { XmlElement, child, childText, path } from '../io/xml';
import { addCvss, arr, cwes, num, obj, severityOf, str, vulnIds } from '../normalize';
import { MAX_COMPONENT_FIELD_CHARS, MAX_LICENSE_CHARS, MAX_LICENSES } from '../components';
import { each, hasKeys, JsonFormat, ParseContext, XmlFormat } from './common';

type Obj = Record<string, unknown>;

/**
 * CycloneDX 1.2–1.6, JSON and XML. XML is first mapped onto the JSON shape (including the 1.0
 * vulnerability extension of CycloneDX 1.2/1.3, whose vulnerabilities point at a component with `ref`),
 * so both share one mapping. One finding per (vulnerability, affected component).
 */

/** CVSS vectors in CycloneDX usually lack the version prefix; the rating method names it. */
const METHOD_PREFIX: Record<string, string> = {
  CVSSv2: '',
  CVSSv3: 'CVSS:3.0/',
  CVSSv31: 'CVSS:3.1/',
  CVSSv4: 'CVSS:4.0/',
};
const METHOD_RANK = ['CVSSv4', 'CVSSv31', 'CVSSv3', 'CVSSv2'];

function withPrefix(vector: string, method: string | undefined): string {
  if (/^CVSS:/.test(vector) || !method || !(method in METHOD_PREFIX)) return vector;
  return METHOD_PREFIX[method] + vector.replace(/^\(|\)$/g, '');
}

function fromPurl(ref: string): Component {
  const m = /^pkg:[^/]+\/(?:.*\/)?([^/@?#]+)(?:@([^?#]+))?/.exec(ref);
  return m
    ? { name: decodeURIComponent(m[1]), version: m[2] ? decodeURIComponent(m[2]) : undefined, purl: ref }
    : { name: ref };
}

// Cut here as well as in parse.ts: a vulnerability's title and library are read from its component.
const componentField = (v: unknown) => str(v)?.slice(0, MAX_COMPONENT_FIELD_CHARS);

/** A component's licences: each entry is a licence (its SPDX id, else its name) or an SPDX expression, each once. */
function licensesOf(list: unknown): string[] | undefined {
  const out = new Set<string>();
  for (const l of each(list)) {
    const o = obj(l);
    const license = obj(o.license);
    const named = str(o.expression) ?? str(license.id) ?? str(license.name);
    if (named) out.add(named.slice(0, MAX_LICENSE_CHARS));
    if (out.size === MAX_LICENSES) break;
  }
  return out.size ? [...out] : undefined;
}

function collectComponents(list: unknown, out: Map<string, Component>, ctx: ParseContext): void {
  for (const c of each(list)) {
    const o = obj(c);
    const name = componentField(o.name);
    if (name) {
      const comp: Component = {
        name,
        group: componentField(o.group),
        version: componentField(o.version),
        purl: componentField(o.purl),
        type: componentField(o.type),
        licenses: licensesOf(o.licenses),
      };
      ctx.components.push(comp);
      const ref = str(o['bom-ref']) ?? str(o.purl);
      if (ref) out.set(ref, comp);
    }
    collectComponents(o.components, out, ctx);
  }
}

function severityOfRatings(ratings: Obj[]): { severity?: Severity; raw?: string } {
  const ranked = [...ratings].sort((a, b) => rank(a) - rank(b));
  for (const r of ranked) {
    const word = str(r.severity);
    if (word && severityOf(word) && word.toLowerCase() !== 'unknown') return { severity: severityOf(word), raw: word };
    const score = num(r.score);
    if (score !== undefined && severityOf(score)) return { severity: severityOf(score), raw: String(score) };
  }
  return {};
}

function rank(r: Obj): number {
  const i = METHOD_RANK.indexOf(str(r.method) ?? '');
  return i < 0 ? METHOD_RANK.length : i;
}

function* parseBom(bom: Obj, ctx: ParseContext): Generator<Finding> {
  const byRef = new Map<string, Component>();
  const meta = obj(obj(bom.metadata).component);
  if (str(meta.name)) {
    const ref = str(meta['bom-ref']);
    if (ref) byRef.set(ref, { name: String(meta.name), version: str(meta.version), purl: str(meta.purl) });
  }
  collectComponents(bom.components, byRef, ctx);
  for (const x of each(bom.vulnerabilities)) {
    const v = obj(x);
    const id = str(v.id) ?? 'unknown';
    const ratings = arr(v.ratings).map(obj);
    const { severity, raw } = severityOfRatings(ratings);
    const analysis = obj(v.analysis);
    const affects = arr(v.affects)
      .map(obj)
      .filter((a) => str(a.ref));
    const targets = affects.length ? affects : [undefined];
    for (const target of targets) {
      const ref = target && String(target.ref);
      // VEX documents state versions (or ranges) per affected product; each statement is its own finding.
      const versions = arr(target?.versions)
        .map((x) => str(obj(x).version) ?? str(obj(x).range))
        .filter(Boolean)
        .join(', ');
      const local = ref?.replace(/^urn:cdx:[^#]*#/, '');
      const found = ref && local !== undefined ? (byRef.get(ref) ?? byRef.get(local) ?? fromPurl(local)) : undefined;
      const comp = found && versions && !found.version ? { ...found, version: versions } : found;
      const init: FindingInit = {
        tool: str(obj(arr(v.tools)[0]).name) ?? str(obj(v.source).name) ?? 'cyclonedx',
        toolCategory: 'sca',
        ruleId: id,
        title: comp ? `${comp.name}${comp.version ? `:${comp.version}` : ''} | ${id}` : id,
        description: [str(v.description), str(v.detail)].filter(Boolean).join('\n\n') || undefined,
        severity: severity ?? 'info',
        toolSeverity: raw,
        cwes: cwes(v.cwes),
        vulnerabilityIds: vulnIds([id, ...arr(v.references).map((r) => obj(r).id)]),
        references: [str(obj(v.source).url), ...arr(v.advisories).map((a) => str(obj(a).url))].filter(
          (u): u is string => !!u,
        ),
        mitigation: str(v.recommendation),
        library: comp ? { name: comp.name, version: comp.version, purl: comp.purl } : undefined,
        // A BOM-link names the document the component is described in.
        filePath: ref?.startsWith('urn:cdx:') ? ref.replace(/#.*$/, '') : undefined,
        detectedAt: str(v.published) ?? str(v.created),
      };
      for (const r of [...ratings].sort((a, b) => rank(a) - rank(b))) {
        const vector = str(r.vector);
        if (vector)
          addCvss(init, withPrefix(vector, str(r.method)), /^CVSS/.test(str(r.method) ?? '') ? r.score : undefined);
      }
      if (str(analysis.state)) {
        init.suppression = {
          state: String(analysis.state),
          source: 'vex',
          justification: str(analysis.justification) ?? str(analysis.detail),
        };
      }
      yield ctx.finding(init);
    }
  }
}

export const cyclonedxJson: JsonFormat = {
  id: 'cyclonedx-json',
  title: 'CycloneDX JSON (SBOM components, vulnerabilities, VEX)',
  testedWith: 'CycloneDX 1.2–1.6; corpus samples: 1.4',
  kind: 'json',
  detect: (doc) =>
    str(obj(doc).bomFormat) === 'CycloneDX' ||
    (hasKeys(doc, 'specVersion') && (hasKeys(doc, 'components') || hasKeys(doc, 'vulnerabilities'))),
  parse: (doc, ctx) => parseBom(obj(doc), ctx),
};

function xmlComponent(el: XmlElement): Obj {
  return {
    'bom-ref': el.attrs['bom-ref'],
    type: el.attrs.type,
    name: childText(el, 'name'),
    group: childText(el, 'group'),
    version: childText(el, 'version'),
    purl: childText(el, 'purl'),
    licenses: [
      ...path(el, 'licenses', 'license').map((l) => ({
        license: { id: childText(l, 'id'), name: childText(l, 'name') },
      })),
      ...path(el, 'licenses', 'expression').map((e) => ({ expression: e.text })),
    ],
    components: path(el, 'components', 'component').map(xmlComponent),
  };
}

function xmlVulnerability(el: XmlElement, ownerRef?: string): Obj {
  const ratings = path(el, 'ratings', 'rating').map((r) => ({
    // 1.4+: <score>9.8</score>; the 1.0 extension: <score><base>9.8</base>...</score>.
    score: childText(child(r, 'score'), 'base') ?? childText(r, 'score'),
    severity: childText(r, 'severity'),
    method: childText(r, 'method'),
    vector: childText(r, 'vector'),
  }));
  const ref = el.attrs.ref ?? ownerRef;
  const affects = path(el, 'affects', 'target').map((t) => ({ ref: childText(t, 'ref') }));
  const analysis = child(el, 'analysis');
  return {
    id: childText(el, 'id'),
    source: {
      name: child(el, 'source')?.attrs.name ?? childText(child(el, 'source'), 'name'),
      url: childText(child(el, 'source'), 'url'),
    },
    references: path(el, 'references', 'reference').map((r) => ({ id: childText(r, 'id') })),
    ratings,
    cwes: path(el, 'cwes', 'cwe').map((c) => c.text),
    description: childText(el, 'description'),
    detail: childText(el, 'detail'),
    recommendation:
      childText(el, 'recommendation') ??
      path(el, 'recommendations', 'recommendation')
        .map((r) => r.text)
        .join('\n'),
    advisories: path(el, 'advisories', 'advisory').map((a) => ({ url: childText(a, 'url') ?? a.text })),
    affects: affects.length ? affects : ref ? [{ ref }] : [],
    analysis: analysis
      ? { state: childText(analysis, 'state'), justification: childText(analysis, 'justification') }
      : undefined,
    published: childText(el, 'published'),
  };
}

function xmlToBom(root: XmlElement): Obj {
  const components = path(root, 'components', 'component');
  // The 1.0 extension may also nest vulnerabilities inside the component they affect.
  const nested: Obj[] = [];
  const walk = (c: XmlElement): void => {
    for (const v of path(c, 'vulnerabilities', 'vulnerability'))
      nested.push(xmlVulnerability(v, c.attrs['bom-ref'] ?? childText(c, 'purl')));
    path(c, 'components', 'component').forEach(walk);
  };
  components.forEach(walk);
  const meta = child(child(root, 'metadata'), 'component');
  return {
    metadata: meta ? { component: xmlComponent(meta) } : {},
    components: components.map(xmlComponent),
    vulnerabilities: [...path(root, 'vulnerabilities', 'vulnerability').map((v) => xmlVulnerability(v)), ...nested],
  };
}

export const cyclonedxXml: XmlFormat = {
  id: 'cyclonedx-xml',
  title: 'CycloneDX XML (SBOM components, vulnerabilities, VEX)',
  testedWith: 'CycloneDX 1.0–1.6; corpus samples: 1.0, 1.2, 1.4',
  kind: 'xml',
  detect: (root) => root.name === 'bom' && /cyclonedx\.org\/schema\/bom/.test(root.attrs.xmlns ?? ''),
  parse: (root, ctx) => parseBom(xmlToBom(root), ctx),
};
