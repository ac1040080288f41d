import { useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { formatDate, Lang } from '../i18n';
import type { Check, Layer, Page, Project, ScanResult } from '../types';
import { checkName, loadCatalog } from './projects/catalog';

/** The id filters of the issue list, shown and picked by name rather than by id. */
export type IdFilter = 'project' | 'layer' | 'check' | 'scan';

/** Each kind's names by id (project code, layer id, check id), in the order a picker lists them. */
export type IdNames = Partial<Record<IdFilter, Map<string, string>>>;

const LIST = { limit: 1000 };

const loaders: Record<Exclude<IdFilter, 'scan'>, () => Promise<Map<string, string>>> = {
  project: async () => {
    const r = await api<Page<Project>>('GET', '/projects', undefined, LIST);
    return new Map(r.items.map((p) => [p.code, `${p.name} (${p.code})`]));
  },
  layer: async () => {
    const r = await api<Page<Layer>>('GET', '/layers', undefined, LIST);
    return new Map(r.items.map((l) => [l.id, `${l.project_code} · ${l.name}`]));
  },
  check: async () => {
    const [r, catalog] = await Promise.all([api<Page<Check>>('GET', '/checks', undefined, LIST), loadCatalog()]);
    return new Map(r.items.map((c) => [c.id, `${c.project_code} · ${checkName(c, catalog)}`]));
  },
};

/**
 * Names for the id filters in use or being picked: the lists of projects, layers and checks once
 * each, a scan by its own date. A list the reader's role may not read leaves the ids as they are.
 */
export function useIdNames(kinds: IdFilter[], scans: string[], lang: Lang, scanOf: (date: string) => string): IdNames {
  const [names, setNames] = useState<IdNames>({});
  const asked = useRef(new Set<IdFilter>());
  const key = [...new Set(kinds)].sort().join(',');
  useEffect(() => {
    for (const kind of kinds) {
      if (kind === 'scan' || asked.current.has(kind)) continue;
      asked.current.add(kind);
      loaders[kind]().then(
        (map) => setNames((n) => ({ ...n, [kind]: map })),
        () => setNames((n) => ({ ...n, [kind]: new Map() })),
      );
    }
  }, [key]); // `key` is `kinds` as text: each list is asked for once, when first wanted
  const scanKey = scans.join(',');
  useEffect(() => {
    for (const id of scans)
      api<ScanResult>('GET', `/scan-result/${encodeURIComponent(id)}`).then(
        (s) =>
          setNames((n) => ({ ...n, scan: new Map([...(n.scan ?? []), [id, scanOf(formatDate(lang, s.created_at))]]) })),
        () => undefined,
      );
  }, [scanKey, lang]); // `scanKey` is `scans` as text; a language switch renames
  return names;
}
