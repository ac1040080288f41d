import { containing, iso, Queryable, queryPage } from '@bulwark/platform';
import { newestFirstPage } from './paging';
import type { Component } from '@bulwark/findings';

export interface SbomRecord {
  id: string;
  layerId: string;
  projectCode: string;
  projectName: string;
  format: string;
  fileName: string;
  componentsCount: number;
  vulnerabilitiesCount: number;
  uploadedBy: string | null;
  createdAt: string;
}

interface SbomRow {
  id: string;
  layer_id: string;
  project_code: string;
  project_name: string;
  format: string;
  file_name: string;
  components_count: number;
  vulnerabilities_count: number;
  uploaded_by: string | null;
  created_at: Date;
}

const toRecord = (r: SbomRow): SbomRecord => ({
  id: r.id,
  layerId: r.layer_id,
  projectCode: r.project_code,
  projectName: r.project_name,
  format: r.format,
  fileName: r.file_name,
  componentsCount: r.components_count,
  vulnerabilitiesCount: r.vulnerabilities_count,
  uploadedBy: r.uploaded_by,
  createdAt: iso(r.created_at),
});

export interface DependencyRecord {
  name: string;
  version: string | null;
  type: string | null;
  purl: string | null;
  licenses: string[];
  layerId: string;
  projectCode: string;
  projectName: string;
  sbomId: string;
}

interface DependencyRow {
  name: string;
  version: string | null;
  type: string | null;
  purl: string | null;
  licenses: string[];
  layer_id: string;
  project_code: string;
  project_name: string;
  sbom_id: string;
}

const BATCH = 500;
const like = (s: string) => containing(s);

export const sbomStore = {
  /** Stores the SBOM and makes its components the layer's dependency list. */
  async replaceForLayer(db: Queryable, s: Omit<SbomRecord, 'createdAt'>, components: Component[]): Promise<void> {
    await db('sboms').insert({
      id: s.id,
      layer_id: s.layerId,
      project_code: s.projectCode,
      project_name: s.projectName,
      format: s.format,
      file_name: s.fileName,
      components_count: s.componentsCount,
      vulnerabilities_count: s.vulnerabilitiesCount,
      uploaded_by: s.uploadedBy,
    });
    await db('dependencies').where({ layer_id: s.layerId }).delete();
    for (let i = 0; i < components.length; i += BATCH) {
      await db('dependencies').insert(
        components.slice(i, i + BATCH).map((c) => ({
          sbom_id: s.id,
          layer_id: s.layerId,
          project_code: s.projectCode,
          project_name: s.projectName,
          name: c.group ? `${c.group}/${c.name}` : c.name,
          version: c.version ?? null,
          type: c.type ?? null,
          purl: c.purl ?? null,
          licenses: c.licenses ?? [],
        })),
      );
    }
  },

  async get(db: Queryable, id: string): Promise<SbomRecord | undefined> {
    const row = await db<SbomRow>('sboms').where({ id }).first();
    return row ? toRecord(row) : undefined;
  },

  /** A layer's latest SBOM with every component of it (the layer's dependency list), or undefined without one. */
  async latestForLayer(
    db: Queryable,
    layerId: string,
  ): Promise<
    { sbom: SbomRecord; components: Pick<DependencyRecord, 'name' | 'version' | 'type' | 'purl'>[] } | undefined
  > {
    const row = await db<SbomRow>('sboms')
      .where({ layer_id: layerId })
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .first();
    if (!row) return undefined;
    const components: Pick<DependencyRecord, 'name' | 'version' | 'type' | 'purl'>[] = await db('dependencies')
      .where({ layer_id: layerId, sbom_id: row.id })
      .orderBy('name')
      .orderBy('version')
      .orderBy('id')
      .select('name', 'version', 'type', 'purl');
    return { sbom: toRecord(row), components };
  },

  async list(
    db: Queryable,
    q: { page: number; limit: number; projectCode?: string; search?: string; projects: string[] | null },
  ) {
    const base = db('sboms').where((w) => {
      if (q.projectCode) w.where('project_code', q.projectCode);
      if (q.projects) w.whereIn('project_code', q.projects);
      const search = q.search;
      if (search)
        w.where((o) => {
          o.whereILike('file_name', like(search))
            .orWhereILike('project_name', like(search))
            .orWhereILike('project_code', like(search));
        });
    });
    return newestFirstPage(base, q, toRecord);
  },

  async dependencies(
    db: Queryable,
    q: {
      page: number;
      limit: number;
      layerId?: string;
      name?: string;
      projectName?: string;
      type?: string;
      version?: string;
      projects: string[] | null;
    },
  ): Promise<{ items: DependencyRecord[]; total: number }> {
    const base = db('dependencies').where((w) => {
      if (q.layerId) w.where('layer_id', q.layerId);
      if (q.projects) w.whereIn('project_code', q.projects);
      if (q.name) w.whereILike('name', like(q.name));
      if (q.projectName) w.whereILike('project_name', like(q.projectName));
      if (q.type) w.whereILike('type', like(q.type));
      if (q.version) w.whereILike('version', like(q.version));
    });
    const { rows, total } = await queryPage<DependencyRow>(base, q, [
      { column: 'name' },
      { column: 'version' },
      { column: 'id' },
    ]);
    return {
      items: rows.map((r) => ({
        name: r.name,
        version: r.version,
        type: r.type,
        purl: r.purl,
        licenses: r.licenses,
        layerId: r.layer_id,
        projectCode: r.project_code,
        projectName: r.project_name,
        sbomId: r.sbom_id,
      })),
      total,
    };
  },

  /** The values the dependency filters can take, within some layers. */
  async filterValues(db: Queryable, q: { layerIds?: string[]; projects: string[] | null }) {
    const scoped = () =>
      db('dependencies').where((w) => {
        if (q.layerIds?.length) w.whereIn('layer_id', q.layerIds);
        if (q.projects) w.whereIn('project_code', q.projects);
      });
    const distinct = async (column: string) =>
      (await scoped().distinct(column).whereNotNull(column).orderBy(column).limit(1000)).map(
        (r: Record<string, string>) => r[column],
      );
    const [types, projects, layers] = await Promise.all([
      distinct('type'),
      distinct('project_name'),
      distinct('layer_id'),
    ]);
    return { types, project_names: projects, layer_ids: layers };
  },
};
