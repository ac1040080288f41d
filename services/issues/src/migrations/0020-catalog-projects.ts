import type { Migration } from '@bulwark/platform';

/**
 * What issues knows of the catalog's projects, in one table: the criticality (risk score, migration
 * 0016) and the tags (SLA policies, migration 0018) were learnt the same way, at an ingestion and from
 * the catalog's project events, into a table each. A null fact is not known yet.
 */
export const catalogProjectsMigration: Migration = {
  name: '0020_catalog_projects',
  async up(db) {
    await db.schema.createTable('catalog_projects', (t) => {
      t.text('project_code').primary();
      t.text('criticality');
      t.specificType('tags', 'text[]');
    });
    await db.raw(`insert into catalog_projects (project_code, criticality, tags)
      select coalesce(s.project_code, c.project_code), c.criticality, s.tags
      from sla_projects s full join project_criticality c on c.project_code = s.project_code`);
    await db.schema.dropTable('project_criticality');
    await db.schema.dropTable('sla_projects');
  },
};
