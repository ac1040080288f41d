import { Finding, FindingInit, Severity, Suppression, ToolCategory } from '../model';
import {
  arr,
  cwes,
  isObj,
  line,
  num,
  obj,
  severityOf,
  severityOfScore,
  shorten,
  str,
  uniq,
  vulnIds,
} from '../normalize';
import { categoryOfTool } from './category';
import { each, hasKeys, JsonFormat, ParseContext } from './common';

type Obj = Record<string, unknown>;

const LEVELS: Record<string, Severity> = { error: 'high', warning: 'medium', note: 'info', none: 'info' };

interface Run {
  tool: string;
  rules: Map<string, Obj>;
  byIndex: Obj[];
  /** Read in only when a result names its file by index alone. */
  artifacts: () => unknown[];
  detectedAt?: string;
  ruleLevels: Map<string, string>;
  ruleInfo: Map<Obj, RuleInfo>;
  category: ToolCategory;
}

function lazily<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** SARIF 2.1.0 keeps rules in tool.driver / tool.extensions; 2.0.0 drafts in run.resources.rules (a map). */
function readRun(run: Obj): Run {
  const tool = obj(run.tool);
  const driver = isObj(tool.driver) ? tool.driver : tool;
  const rules = new Map<string, Obj>();
  const byIndex: Obj[] = [];
  for (const r of each(driver.rules)) {
    byIndex.push(obj(r));
    if (str(obj(r).id)) rules.set(String(obj(r).id), obj(r));
  }
  for (const ext of each(tool.extensions)) {
    for (const r of each(obj(ext).rules)) if (str(obj(r).id)) rules.set(String(obj(r).id), obj(r));
  }
  for (const [id, r] of Object.entries(obj(obj(run.resources).rules))) rules.set(id, obj(r));
  // Invocations may override a rule's default level (ruleConfigurationOverrides).
  const ruleLevels = new Map<string, string>();
  const invocation = obj(arr(run.invocations)[0]);
  for (const o of arr(invocation.ruleConfigurationOverrides)) {
    const desc = obj(obj(o).descriptor);
    const level = str(obj(obj(o).configuration).level);
    const id = str(desc.id) ?? str(byIndex[num(desc.index) ?? -1]?.id);
    if (id && level) ruleLevels.set(id, level);
  }
  return {
    tool: str(driver.name) ?? str(driver.fullName) ?? 'sarif',
    rules,
    byIndex,
    artifacts: lazily(() => arr(run.artifacts ?? run.files)),
    detectedAt: str(invocation.startTimeUtc) ?? str(invocation.endTimeUtc),
    ruleLevels,
    ruleInfo: new Map(),
    category: categoryOfTool(str(driver.name) ?? str(driver.fullName) ?? ''),
  };
}

function ruleOf(run: Run, result: Obj): Obj | undefined {
  const id = str(result.ruleId) ?? str(obj(result.rule).id);
  const index = num(result.ruleIndex) ?? num(obj(result.rule).index);
  if (index !== undefined && run.byIndex[index] && (!id || run.byIndex[index].id === id)) return run.byIndex[index];
  if (!id) return undefined;
  // Hierarchical ids ("C2001/1") fall back to their base rule.
  return run.rules.get(id) ?? run.rules.get(id.split('/')[0]);
}

function messageText(message: unknown, rule: Obj | undefined): string | undefined {
  if (typeof message === 'string') return message;
  const m = obj(message);
  const direct = str(m.text) ?? str(m.markdown);
  if (direct) return direct;
  const id = str(m.id) ?? str(m.messageId);
  if (!id || !rule) return undefined;
  const template = obj(rule.messageStrings)[id];
  const text = typeof template === 'string' ? template : str(obj(template).text);
  if (!text) return undefined;
  const args = arr(m.arguments).map(String);
  return text.replace(/\{(\d+)\}/g, (all, i: string) => args[Number(i)] ?? all);
}

function severity(result: Obj, rule: Obj | undefined, run: Run): { severity: Severity; raw?: string } {
  const props = obj(result.properties);
  const ruleProps = obj(rule?.properties);
  // CodeQL, Trivy and others put a CVSS-like score here; it is more precise than the level.
  const score = num(props['security-severity']) ?? num(ruleProps['security-severity']);
  if (score !== undefined && severityOfScore(score))
    return { severity: severityOfScore(score) as Severity, raw: String(score) };
  const level = str(result.level);
  if (level && LEVELS[level]) return { severity: LEVELS[level], raw: level };
  for (const key of ['severity', 'issue_severity', 'securityRisk', 'Severity']) {
    const word = str(props[key]) ?? str(ruleProps[key]);
    if (word && severityOf(word)) return { severity: severityOf(word) as Severity, raw: word };
  }
  const ruleLevel = (rule && run.ruleLevels.get(String(rule.id))) ?? str(obj(rule?.defaultConfiguration).level);
  if (ruleLevel && LEVELS[ruleLevel]) return { severity: LEVELS[ruleLevel], raw: ruleLevel };
  return { severity: 'medium' };
}

interface RuleInfo {
  id?: string;
  cwes: number[];
  tags: string[];
  vulnerabilityIds: string[];
  references: string[];
  description?: string;
  mitigation?: string;
}

const NO_RULE: RuleInfo = { cwes: [], tags: [], vulnerabilityIds: [], references: [] };

/** What a finding takes from its rule, worked out once per rule rather than once per result. */
function ruleInfo(run: Run, rule: Obj | undefined): RuleInfo {
  if (!rule) return NO_RULE;
  let info = run.ruleInfo.get(rule);
  if (info) return info;
  const ruleProps = obj(rule.properties);
  const related = arr(rule.relationships)
    .map((r) => obj(obj(r).target))
    .filter((t) => /cwe/i.test(str(obj(t.toolComponent).name) ?? '') || /^cwe/i.test(str(t.id) ?? ''))
    .map((t) => t.id);
  const tags = arr(ruleProps.tags).filter((t): t is string => typeof t === 'string');
  info = {
    id: str(rule.id),
    cwes: cwes(
      related,
      ruleProps.cwe,
      tags.filter((t) => /cwe/i.test(t)),
    ),
    tags,
    vulnerabilityIds: vulnIds([], str(rule.id), str(rule.name), str(obj(rule.shortDescription).text)),
    references: [str(rule.helpUri)].filter((u): u is string => !!u),
    description: str(obj(rule.fullDescription).text),
    mitigation: str(obj(rule.help).text),
  };
  run.ruleInfo.set(rule, info);
  return info;
}

function fingerprints(result: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['fingerprints', 'partialFingerprints']) {
    for (const [k, v] of Object.entries(obj(result[key]))) {
      // Some tools nest the hash in an object ({"value": "..."}).
      const s = typeof v === 'string' ? v : (str(obj(v).value) ?? JSON.stringify(v));
      out[k] = s;
    }
  }
  return out;
}

function suppression(result: Obj): Suppression | undefined {
  for (const s of arr(result.suppressions)) {
    const o = obj(s);
    const status = str(o.status) ?? 'accepted';
    if (status === 'rejected') continue;
    return { state: status, source: 'sarif', justification: str(o.justification) ?? str(o.kind) };
  }
  // SARIF 2.0 drafts.
  const states = arr(result.suppressionStates).map(String);
  return states.length ? { state: 'accepted', source: 'sarif', justification: states.join(', ') } : undefined;
}

/** Dependency scanners writing SARIF name the package in properties or in the message text. */
function library(props: Obj, message: string): FindingInit['library'] {
  const name =
    str(props.component) ??
    str(props.PkgName) ??
    (message.includes('Package: ') ? /^Package: (.+)$/m.exec(message)?.[1] : undefined);
  if (!name) return undefined;
  return {
    name,
    version:
      str(props.componentVersion) ?? str(props.InstalledVersion) ?? /^Installed Version: (.+)$/m.exec(message)?.[1],
    fixedVersion: /^Fixed Version: (.+)$/m.exec(message)?.[1],
  };
}

function* parse(doc: unknown, ctx: ParseContext): Generator<Finding> {
  for (const rawRun of each(obj(doc).runs)) {
    const runObj = obj(rawRun);
    const run = readRun(runObj);
    for (const r of each(runObj.results)) {
      const result = obj(r);
      const kind = str(result.kind);
      if (kind && kind !== 'fail') continue;
      const rule = ruleOf(run, result);
      const ruleId = str(result.ruleId) ?? str(obj(result.rule).id) ?? str(rule?.id);
      const message =
        messageText(result.message, rule) ?? str(obj(rule?.shortDescription).text) ?? ruleId ?? 'SARIF result';
      const { severity: sev, raw } = severity(result, rule, run);
      const props = obj(result.properties);
      const lib = library(props, message);
      const info = ruleInfo(run, rule);
      const resultCwes = cwes(
        obj(result.properties).cwe,
        arr(result.taxa)
          .map((t) => obj(t).id)
          .filter((id) => /cwe/i.test(String(id))),
      );
      const base: FindingInit = {
        tool: run.tool,
        toolCategory: lib ? 'sca' : run.category,
        ruleId,
        title: shorten(message.split('\n', 1)[0] || message),
        description: info.description ? `${message}\n\n${info.description}` : message,
        severity: sev,
        toolSeverity: raw,
        tags: info.tags,
        cwes: resultCwes.length ? uniq([...info.cwes, ...resultCwes]) : info.cwes,
        vulnerabilityIds:
          ruleId === info.id
            ? info.vulnerabilityIds
            : vulnIds([], ruleId, str(rule?.name), str(obj(rule?.shortDescription).text)),
        references: info.references,
        mitigation: info.mitigation,
        library: lib,
        toolFingerprints: fingerprints(result),
        suppression: suppression(result),
        baselineState: str(result.baselineState),
        detectedAt: str(props.date) ?? run.detectedAt,
      };
      const locations = arr(result.locations);
      if (locations.length === 0) {
        yield ctx.finding(base);
        continue;
      }
      // Each location is a place to fix: one finding per location.
      for (const l of locations) {
        const phys = obj(obj(l).physicalLocation);
        const art = obj(phys.artifactLocation ?? phys.fileLocation);
        const index = num(art.index);
        const uri =
          str(art.uri) ?? (index !== undefined ? str(obj(obj(run.artifacts()[index]).location).uri) : undefined);
        const region = obj(phys.region);
        // Lists are shared between the findings of one result: nothing mutates them in place.
        const f: FindingInit = locations.length === 1 ? base : { ...base };
        f.filePath = uri;
        f.startLine = line(region.startLine);
        f.endLine = line(region.endLine) ?? f.startLine;
        f.snippet = str(obj(region.snippet).text);
        yield ctx.finding(f);
      }
    }
  }
}

export const sarif: JsonFormat = {
  id: 'sarif',
  title: 'SARIF, any tool',
  testedWith: 'SARIF 2.1.0 and 2.0.0 drafts, corpus samples of several tools',
  kind: 'json',
  detect: (doc) =>
    hasKeys(doc, 'runs') && (/^2\./.test(str(obj(doc).version) ?? '') || /sarif/i.test(str(obj(doc).$schema) ?? '')),
  parse,
};
