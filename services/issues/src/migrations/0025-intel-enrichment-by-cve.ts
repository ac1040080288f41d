import type { Migration } from '@bulwark/platform';
import { OPEN_STATUSES } from '../domain/statuses';

const OPEN = OPEN_STATUSES.join(', ');

/**
 * Enrichment by CVE (issue #30, a million issues re-enriched in seconds): a feed load diffs the old
 * and new feed tables and re-enriches only the open issues naming a CVE whose values changed, found
 * through an index on the issues' CVEs; so every open issue must already hold the current feed's
 * values. Ingestion enriches what it writes; an issue that becomes open again by any other path (a
 * person, a rule removed, an acceptance ending) missed the loads made while it was closed, and a
 * trigger gives it the current values as it reopens, before the SLA trigger reads them.
 */
export const intelEnrichmentByCveMigration: Migration = {
  name: '0025_intel_enrichment_by_cve',
  async up(db) {
    // An issue's ids as the feeds spell them (upper case): its CVE and its aliases. Computed for every
    // row an ingestion writes (the index below), so in one pass over the array's text instead of a
    // subquery per element (a quarter of the cost, measured); text[] input and output depend on no setting.
    await db.raw(`create function issue_cves(cve text, ids text[]) returns text[] language plpgsql immutable parallel safe as $$
      begin
        return array_remove(upper(array_append(ids, cve)::text)::text[], null);
      end $$`);
    // Only the issues naming an id: most findings (SAST, secrets, IaC) name none and cost the index
    // nothing. Without GIN's pending list: a load probes the index once per changed CVE, and each
    // probe would read the whole list of entries not merged yet (0.7 ms a probe, measured).
    await db.raw(`create index issues_cves on issue_records using gin (issue_cves(cve, vulnerability_ids))
      with (fastupdate = off) where cve is not null or cardinality(vulnerability_ids) > 0`);
    // An issue's feed values from its ids: the highest EPSS score and percentile, whether any is in
    // KEV (null when none) and the earliest KEV due date. Inlined by PostgreSQL where it is called;
    // offset 0 keeps each lookup a primary-key probe per id (joined, a per-issue hash of the KEV table).
    await db.raw(`create function issue_intel(cve text, ids text[])
      returns table (epss double precision, percentile double precision, kev boolean, due date) language sql stable as $$
      select max(e.epss), max(e.percentile), nullif(bool_or(k.cve is not null), false), min(k.due_date)
      from unnest(issue_cves(cve, ids)) v(cve)
      left join lateral (select e.epss, e.percentile from intel_epss e where e.cve = v.cve offset 0) e on true
      left join lateral (select k.cve, k.due_date from intel_kev k where k.cve = v.cve offset 0) k on true
    $$`);
    await db.raw(`create function issue_intel_reopened() returns trigger language plpgsql as $$
      begin
        select x.epss, x.percentile, x.kev, x.due
          into new.intel_epss, new.intel_epss_percentile, new.intel_known_exploited, new.kev_due_date
          from issue_intel(new.cve, new.vulnerability_ids) x;
        return new;
      end $$`);
    // Named to run before issue_sla_update (triggers of one event run in name order).
    await db.raw(`create trigger issue_intel_reopened before update of status_id on issue_records for each row
      when (old.status_id not in (${OPEN}) and new.status_id in (${OPEN})
        and (new.cve is not null or cardinality(new.vulnerability_ids) > 0))
      execute function issue_intel_reopened()`);
    // The open issues reopened by a person since the last load missed it until the next full
    // re-enrichment, which loads no longer make: they catch up once here.
    await db.raw(`with intel as (
        select i.id, x.* from issue_records i cross join lateral issue_intel(i.cve, i.vulnerability_ids) x
        where i.status_id in (${OPEN}) and (i.cve is not null or cardinality(i.vulnerability_ids) > 0)
          and exists (select 1 from intel_feeds where records > 0))
      update issue_records r set intel_epss = intel.epss, intel_epss_percentile = intel.percentile,
        intel_known_exploited = intel.kev, kev_due_date = intel.due
      from intel where r.id = intel.id
        and (r.intel_epss, r.intel_epss_percentile, r.intel_known_exploited, r.kev_due_date)
          is distinct from (intel.epss, intel.percentile, intel.kev, intel.due)`);
  },
};
