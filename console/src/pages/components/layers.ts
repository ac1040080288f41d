import { api } from '../../api';
import { useLoad } from '../../hooks';
import type { Layer, Page } from '../../types';

/** Every layer the reader may read, by id: SBOMs and issues name a layer by id only. */
export const useLayers = () =>
  useLoad(
    () =>
      api<Page<Layer>>('GET', '/layers', undefined, { limit: 1000 }).then(
        (r) => new Map(r.items.map((l) => [l.id, l])),
        () => new Map<string, Layer>(),
      ),
    [],
  );
