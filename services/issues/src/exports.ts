import {
  canSeeProject,
  CatalogClient,
  forbidden,
  hasPermission,
  notFound,
  Principal,
  Queryable,
  ScanningClient,
  unlessNotFound,
} from '@bulwark/platform';
import { cyclonedxSbom, cyclonedxVex, LayerSbom } from './domain/cyclonedx';
import { mergeRule, SARIF_SCHEMA, sarifResult, sarifRule, SarifRule } from './domain/sarif';
import { IssueFilter, issueStore } from './store/issues/issue-store';

const PAGE = 1000;

/**
 * The issues a filter selects as one SARIF 2.1.0 log, produced page by page so that an export of a
 * million issues never sits in memory: one run per tool, its results first and its rules (collected
 * on the way) after them, which JSON allows since members are unordered.
 */
export async function* sarifExport(
  db: Queryable,
  filter: IssueFilter,
  statusNames: Map<number, string>,
): AsyncGenerator<string> {
  const tools = (await issueStore.distinct(db, filter, 'tool_name')) as string[];
  yield `{"$schema":${JSON.stringify(SARIF_SCHEMA)},"version":"2.1.0","runs":[`;
  for (const [n, tool] of tools.entries()) {
    const rules = new Map<string, { index: number; rule: SarifRule }>();
    yield `${n ? ',' : ''}{"results":[`;
    let written = 0;
    for (let cursor: string | undefined; ;) {
      const page = await issueStore.list(
        db,
        { ...filter, tools: [tool] },
        { page: 1, limit: PAGE, sort: 'first_detected_at', desc: false, cursor },
      );
      const results = page.items.map((issue) => {
        const rule = sarifRule(issue);
        let known = rules.get(rule.id);
        if (known) mergeRule(known.rule, issue);
        else rules.set(rule.id, (known = { index: rules.size, rule }));
        return JSON.stringify(
          sarifResult(issue, known.index, statusNames.get(issue.statusId) ?? String(issue.statusId)),
        );
      });
      if (results.length) yield `${written ? ',' : ''}${results.join(',')}`;
      written += results.length;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const driver = { name: tool, rules: [...rules.values()].map((r) => r.rule) };
    yield `],"tool":${JSON.stringify({ driver })},"columnKind":"unicodeCodePoints"}`;
  }
  yield ']}\n';
}

/** A layer's CycloneDX documents: its SBOM (kept by scanning) and the VEX of its issues. */
export class CyclonedxExports {
  constructor(
    private readonly deps: {
      db: Queryable;
      scanning: ScanningClient;
      catalog: CatalogClient;
      statusNames: () => Promise<Map<number, string>>;
    },
  ) {}

  async layer(principal: Principal, layerId: string, kind: 'sbom' | 'vex') {
    // A layer of a project the caller may not see is as unknown as a missing one.
    const layer = await this.deps.catalog.getLayer({ id: layerId }).catch(unlessNotFound);
    if (!layer || !canSeeProject(principal, layer.projectCode)) throw notFound(`Layer ${layerId}`);
    const info = { id: layer.id, name: layer.name, projectCode: layer.projectCode };
    const sbom: LayerSbom | undefined = await this.deps.scanning.getLayerSbom({ layerId }).catch(unlessNotFound);
    if (kind === 'sbom') {
      if (!sbom) throw notFound(`An uploaded SBOM of layer ${layerId}`);
      return cyclonedxSbom(info, sbom);
    }
    if (!hasPermission(principal, 'issues.issues', 'r'))
      throw forbidden('Requires permission issues.issues:r for kind=vex');
    const [issues, names] = await Promise.all([
      issueStore.layerVulnerabilities(this.deps.db, layerId),
      this.deps.statusNames(),
    ]);
    return cyclonedxVex(info, sbom, issues, names, new Date());
  }
}
