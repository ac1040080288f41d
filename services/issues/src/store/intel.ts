import { randomBytes } from 'node:crypto';
import { iso, pgArray, Queryable, Trx, unnestRows } from '@bulwark/platform';
import type { EpssFeed, KevFeed } from '../domain/intel-feeds';

export type FeedName = 'epss' | 'kev';

interface SettingsRow {
  enabled: boolean;
  epss_url: string;
  kev_url: string;
  interval_hours: number;
  next_run_at: Date | null;
  updated_at: Date;
}
export interface IntelSettingsRecord {
  enabled: boolean;
  epssUrl: string;
  kevUrl: string;
  intervalHours: number;
  nextRunAt: string | null;
  updatedAt: string;
}
const toSettings = (r: SettingsRow): IntelSettingsRecord => ({
  enabled: r.enabled,
  epssUrl: r.epss_url,
  kevUrl: r.kev_url,
  intervalHours: r.interval_hours,
  nextRunAt: iso(r.next_run_at),
  updatedAt: iso(r.updated_at),
});

interface FeedRow {
  feed: FeedName;
  records: number;
  version: string | null;
  model_version: string | null;
  origin: string | null;
  loaded_at: Date | null;
  attempted_at: Date | null;
  error: string | null;
}
export interface FeedStateRecord {
  feed: FeedName;
  records: number;
  /** EPSS: the score date; KEV: the catalog version. */
  version: string | null;
  modelVersion: string | null;
  /** How the loaded data came: `fetch` or `import`. */
  origin: string | null;
  loadedAt: string | null;
  attemptedAt: string | null;
  /** Why the last attempt failed (null: it loaded). */
  error: string | null;
}
const toFeedState = (r: FeedRow): FeedStateRecord => ({
  feed: r.feed,
  records: r.records,
  version: r.version,
  modelVersion: r.model_version,
  origin: r.origin,
  loadedAt: iso(r.loaded_at),
  attemptedAt: iso(r.attempted_at),
  error: r.error,
});

/** Rows per insert statement of a feed load. */
const LOAD_BATCH = 10_000;

/**
 * Which issues an enrichment covers: the open ones naming a CVE whose feed values the loads of this
 * transaction changed (the others hold the current values already), or the open ones of one layer
 * (its scan was just ingested: the issues it detected are among them).
 */
export type EnrichScope = { kind: 'changed' } | { kind: 'layer'; layerId: string };

/** The CVEs whose feed values this transaction's loads changed (added, removed or moved), for the enrichment after them. */
const CHANGED = 'intel_changed_cves';

export const intelStore = {
  /** The saved settings; undefined until the first change through the API. */
  async settings(db: Queryable): Promise<IntelSettingsRecord | undefined> {
    const row = await db('intel_settings').where('id', 1).first<SettingsRow | undefined>();
    return row && toSettings(row);
  },

  /** Saves the settings; the next run is due at once when enabled (the schedule starts from now). */
  async saveSettings(
    db: Queryable,
    s: Omit<IntelSettingsRecord, 'nextRunAt' | 'updatedAt'>,
  ): Promise<IntelSettingsRecord> {
    const values = {
      enabled: s.enabled,
      epss_url: s.epssUrl,
      kev_url: s.kevUrl,
      interval_hours: s.intervalHours,
      next_run_at: null,
      updated_at: db.fn.now(),
    };
    const [row] = await db('intel_settings')
      .insert({ id: 1, ...values })
      .onConflict('id')
      .merge(values)
      .returning<SettingsRow[]>('*');
    return toSettings(row);
  },

  /**
   * Claims the scheduled run when it is due: one statement, so of several replicas exactly one gets
   * the settings back and the others nothing until the next interval.
   */
  async claimDueRun(db: Queryable): Promise<IntelSettingsRecord | undefined> {
    const [row] = await db('intel_settings')
      .where({ id: 1, enabled: true })
      .where((w) => {
        w.whereNull('next_run_at').orWhereRaw('next_run_at <= now()');
      })
      .update({ next_run_at: db.raw("now() + interval_hours * interval '1 hour'") })
      .returning<SettingsRow[]>('*');
    return row && toSettings(row);
  },

  async feeds(db: Queryable): Promise<FeedStateRecord[]> {
    return (await db<FeedRow>('intel_feeds').orderBy('feed')).map(toFeedState);
  },

  /** Whether any feed holds data: without, ingestion has nothing to enrich with. */
  async anyLoaded(db: Queryable): Promise<boolean> {
    return Boolean(await db('intel_feeds').where('records', '>', 0).first('feed'));
  },

  async recordFailure(db: Queryable, feed: FeedName, error: string): Promise<void> {
    await db('intel_feeds').where({ feed }).update({ attempted_at: db.fn.now(), error });
  },

  /**
   * Replaces the EPSS table whole: a new table is filled in batches and renamed in place of the old
   * one in the caller's transaction, after the feed's row is locked (two loads at once take turns).
   * The CVEs whose values differ between the two are noted for `enrich`'s `changed` scope.
   */
  async replaceEpss(trx: Trx, feed: EpssFeed, origin: string): Promise<void> {
    await lockFeed(trx, 'epss');
    const table = `intel_epss_${randomBytes(6).toString('hex')}`;
    await trx.raw(
      `create table ${table} (cve text primary key, epss double precision not null, percentile double precision not null)`,
    );
    for (let i = 0; i < feed.records.length; i += LOAD_BATCH) {
      const v = unnestRows(feed.records.slice(i, i + LOAD_BATCH), {
        cve: 'text',
        epss: 'float8',
        percentile: 'float8',
      });
      await trx.raw(
        `insert into ${table} (cve, epss, percentile) select cve, epss, percentile from ${v.sql} on conflict (cve) do nothing`,
        v.bindings,
      );
    }
    await noteChanges(trx, table, 'intel_epss', 'n.epss <> o.epss or n.percentile <> o.percentile');
    await swap(trx, table, 'intel_epss');
    await trx('intel_feeds').where({ feed: 'epss' }).update({
      records: feed.records.length,
      version: feed.scoreDate,
      model_version: feed.modelVersion,
      origin,
      loaded_at: trx.fn.now(),
      attempted_at: trx.fn.now(),
      error: null,
    });
  },

  /** Replaces the KEV table whole, as replaceEpss. */
  async replaceKev(trx: Trx, feed: KevFeed, origin: string): Promise<void> {
    await lockFeed(trx, 'kev');
    const table = `intel_kev_${randomBytes(6).toString('hex')}`;
    await trx.raw(
      `create table ${table} (cve text primary key, date_added date not null, due_date date, ransomware boolean not null)`,
    );
    for (let i = 0; i < feed.records.length; i += LOAD_BATCH) {
      const rows = feed.records.slice(i, i + LOAD_BATCH).map((r) => ({
        cve: r.cve,
        date_added: r.dateAdded,
        due_date: r.dueDate,
        ransomware: r.ransomware,
      }));
      const v = unnestRows(rows, { cve: 'text', date_added: 'date', due_date: 'date', ransomware: 'boolean' });
      await trx.raw(
        `insert into ${table} (cve, date_added, due_date, ransomware) select cve, date_added, due_date, ransomware from ${v.sql} on conflict (cve) do nothing`,
        v.bindings,
      );
    }
    // The catalog's date added and ransomware use are not issue fields: only a due date changes an issue.
    await noteChanges(trx, table, 'intel_kev', 'n.due_date is distinct from o.due_date');
    await swap(trx, table, 'intel_kev');
    await trx('intel_feeds').where({ feed: 'kev' }).update({
      records: feed.records.length,
      version: feed.catalogVersion,
      model_version: null,
      origin,
      loaded_at: trx.fn.now(),
      attempted_at: trx.fn.now(),
      error: null,
    });
  },

  /**
   * Gives the open issues in `scope` that name a CVE (as `cve` or among their vulnerability ids) the
   * feeds' values, in one statement: the highest EPSS score and percentile of their CVEs, whether
   * any is in KEV and its earliest due date (issue_intel of migration 0025: each issue's values from
   * its own few ids, no grouping of every issue's); rows whose values are already these are not
   * written. Returns how many issues changed.
   */
  async enrich(db: Queryable, scope: EnrichScope, openStatuses: number[]): Promise<number> {
    const names = 'i.status_id = any(?::int[]) and (i.cve is not null or cardinality(i.vulnerability_ids) > 0)';
    let issues: string;
    const bindings = [pgArray(openStatuses)];
    if (scope.kind === 'layer') {
      issues = `select i.id, i.cve, i.vulnerability_ids from issue_records i where ${names} and i.layer_id = ?`;
      bindings.push(scope.layerId);
    } else {
      await db.raw(CREATE_CHANGED);
      // Its size for the plan: a few CVEs changed on most days, every one at a first load.
      await db.raw(`analyze ${CHANGED}`);
      // Each changed CVE's issues through the issues_cves index, one probe per CVE (an overlap with
      // the array of every changed CVE would compare each issue's ids with all of them).
      issues = `select i.id, i.cve, i.vulnerability_ids from ${CHANGED} c
        join issue_records i on issue_cves(i.cve, i.vulnerability_ids) @> array[c.cve] where ${names} group by i.id`;
    }
    // Materialized, so that the values are computed for these issues only, not for every issue before a join.
    const { rowCount } = await db.raw<{ rowCount: number }>(
      `with issues as materialized (${issues}),
       intel as (select s.id, x.epss, x.percentile, x.kev, x.due
         from issues s cross join lateral issue_intel(s.cve, s.vulnerability_ids) x)
       update issue_records r
       set intel_epss = intel.epss, intel_epss_percentile = intel.percentile,
           intel_known_exploited = intel.kev, kev_due_date = intel.due
       from intel
       where r.id = intel.id
         and (r.intel_epss, r.intel_epss_percentile, r.intel_known_exploited, r.kev_due_date)
           is distinct from (intel.epss, intel.percentile, intel.kev, intel.due)`,
      bindings,
    );
    if (scope.kind === 'changed') await db.raw(`truncate ${CHANGED}`);
    return rowCount;
  },
};

async function lockFeed(trx: Trx, feed: FeedName): Promise<void> {
  await trx.raw('select feed from intel_feeds where feed = ? for update', [feed]);
}

const CREATE_CHANGED = `create temporary table if not exists ${CHANGED} (cve text primary key) on commit drop`;

/** Notes the CVEs whose values differ between the loaded table `next` and the current `table` (`n` and `o` in `differs`). */
async function noteChanges(trx: Trx, next: string, table: string, differs: string): Promise<void> {
  await trx.raw(CREATE_CHANGED);
  await trx.raw(
    `insert into ${CHANGED} (cve) select coalesce(n.cve, o.cve) from ${next} n full join ${table} o on o.cve = n.cve
     where n.cve is null or o.cve is null or ${differs} on conflict (cve) do nothing`,
  );
}

async function swap(trx: Trx, next: string, table: string): Promise<void> {
  await trx.raw(`drop table ${table}`);
  await trx.raw(`alter table ${next} rename to ${table}`);
}
