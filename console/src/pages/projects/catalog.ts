import { api } from '../../api';
import { useLoad } from '../../hooks';
import type { I18n, MessageKey } from '../../i18n';
import type { Check, Page, Source, Tool } from '../../types';

/** The tools and sources checks refer to, by id; empty where the reader's role may not read them. */
export interface Catalog {
  tools: Map<string, Tool>;
  sources: Map<string, Source>;
}

const byId = <T extends { id: string }>(items: T[]) => new Map(items.map((x) => [x.id, x]));

/** Every tool and source, read once per page: a check is named by them, and its tool says whether it runs. */
export function loadCatalog(): Promise<Catalog> {
  const all = <T extends { id: string }>(path: string) =>
    api<Page<T>>('GET', path, undefined, { limit: 1000 }).then(
      (r) => byId(r.items),
      () => new Map<string, T>(),
    );
  return Promise.all([all<Tool>('/tools'), all<Source>('/sources')]).then(([tools, sources]) => ({ tools, sources }));
}

export const useCatalog = () => useLoad(loadCatalog, []);

/**
 * A check as a person knows it: its tool, its source and the branch (or tag) it scans, e.g.
 * "Semgrep · shop-api · main". A part the reader may not read is left out; with none, the short id.
 */
export function checkName(check: Check, catalog: Catalog | undefined): string {
  const source = catalog?.sources.get(check.scan_source_id);
  const branch = check.source_auth.branch_name;
  const parts = [
    catalog?.tools.get(check.security_tool_id)?.name,
    source?.name,
    check.taginfo?.tag_name ?? (typeof branch === 'string' && branch ? branch : source?.settings.branch_name),
  ].filter((p): p is string => !!p);
  return parts.length > 0 ? parts.join(' · ') : check.id.slice(0, 8);
}

/** Whether the check's tool runs (a CLI or server scanner); a Manual tool's checks take uploads only. */
export const runnable = (check: Check, catalog: Catalog | undefined) =>
  catalog?.tools.get(check.security_tool_id)?.kind !== 'manual';

/** The built-in layer types (catalog's domain/layer-types.ts) in the reader's language; any other by its own name. */
const LAYER_TYPES: Record<number, MessageKey> = { 1: 'layerType_1', 2: 'layerType_2', 3: 'layerType_3' };
export const layerTypeName = (t: I18n['t'], id: number, name: string) => (LAYER_TYPES[id] ? t(LAYER_TYPES[id]) : name);

/** A tool's type: scanners by their product names, which read alike in every language; the Manual type in the reader's. */
export const toolTypeName = (t: I18n['t'], tool: Tool) =>
  tool.kind === 'manual' ? t('toolTypeManual') : tool.type_name;
