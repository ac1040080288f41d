import type { Migration } from '@bulwark/platform';
import { DEFAULT_STATUSES, DEFAULT_TRANSITIONS } from '../domain/statuses';
import { slaMigration } from './0018-sla';
import { catalogProjectsMigration } from './0020-catalog-projects';
import { riskAcceptanceRevocationMigration } from './0021-risk-acceptance-revocation';
import { pullRequestDecorationsMigration } from './0022-pull-request-decorations';
import { issueCountsDuplicatesMigration } from './0023-issue-counts-duplicates';
import { baseBranchScansMigration } from './0024-base-branch-scans';
import { intelEnrichmentByCveMigration } from './0025-intel-enrichment-by-cve';
import { slaRedateByChangeMigration } from './0026-sla-redate-by-change';
import { branchScanSetsOnDemandMigration } from './0027-branch-scan-sets-on-demand';
import { VIEW_COLUMNS_0014, VIEW_COLUMNS_0016 } from './issues-view';
import { retryQueueColumns } from './retry-queue-columns';

export const migrations: Migration[] = [
  {
    name: '0001_issues',
    async up(db) {
      await db.schema.createTable('statuses', (t) => {
        t.integer('id').primary();
        t.text('name_en').notNullable();
        t.text('name_ru').notNullable();
        t.boolean('builtin').notNullable().defaultTo(false);
      });
      await db('statuses').insert(
        DEFAULT_STATUSES.map((s) => ({ id: s.id, name_en: s.nameEn, name_ru: s.nameRu, builtin: true })),
      );
      await db.schema.createTable('status_transitions', (t) => {
        t.uuid('id').primary().defaultTo(db.raw('gen_random_uuid()'));
        t.integer('from_status').notNullable().references('statuses.id');
        t.integer('to_status').notNullable().references('statuses.id');
        t.unique(['from_status', 'to_status']);
      });
      await db('status_transitions').insert(
        DEFAULT_TRANSITIONS.map(([from, to]) => ({ from_status: from, to_status: to })),
      );

      await db.schema.createTable('issues', (t) => {
        t.uuid('id').primary();
        t.text('project_code').notNullable();
        // '' for project-scoped deduplication, the layer id for layer-scoped rules.
        t.text('scope_id').notNullable();
        t.text('match_key').notNullable();
        t.text('layer_id').notNullable();
        t.text('check_id').notNullable();
        t.text('scan_id').notNullable();
        t.text('first_scan_id').notNullable();
        t.text('tool_id').notNullable();
        t.text('tool_name').notNullable();
        // The scanner's own name as the report writes it (tool_name is the tool registered in the catalog).
        t.text('scanner').notNullable();
        t.text('category').notNullable();
        t.text('title').notNullable();
        t.text('description');
        t.text('severity').notNullable();
        // 5 critical .. 1 info: sorts and compares without a lookup.
        t.smallint('severity_rank').notNullable();
        t.text('rule_id');
        t.integer('status_id').notNullable();
        t.text('assignee');
        t.text('cve');
        t.specificType('vulnerability_ids', 'text[]').notNullable();
        t.specificType('cwes', 'integer[]').notNullable();
        t.text('lib_name');
        t.text('lib_version');
        t.text('file_path');
        t.integer('start_line');
        t.double('cvss_v2');
        t.double('cvss_v3');
        t.double('cvss_v4');
        t.double('cvss_unknown');
        t.double('cvss_max');
        t.double('epss');
        t.boolean('known_exploited').notNullable().defaultTo(false);
        t.text('fingerprint').notNullable();
        t.integer('occurrences').notNullable();
        t.integer('detections').notNullable().defaultTo(1);
        t.jsonb('suppression');
        t.uuid('security_rule_id');
        t.uuid('duplicate_of');
        t.timestamp('first_detected_at', { useTz: true }).notNullable();
        t.timestamp('last_detected_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
      await db.raw('create unique index issues_identity on issues (project_code, scope_id, match_key)');
      // Listing: default order (newest detection) per project, keyset on (last_detected_at, id).
      await db.raw('create index issues_project_recent on issues (project_code, last_detected_at desc, id desc)');
      await db.raw('create index issues_recent on issues (last_detected_at desc, id desc)');
      await db.raw('create index issues_project_status_sev on issues (project_code, status_id, severity_rank)');
      await db.raw('create index issues_check_status on issues (check_id, status_id)');
      await db.raw('create index issues_layer_status on issues (layer_id, status_id)');
      await db.raw('create index issues_tool on issues (tool_name, project_code)');
      await db.raw('create index issues_cve on issues (cve) where cve is not null');
      await db.raw('create index issues_lib on issues (lib_name) where lib_name is not null');
      await db.raw('create index issues_assignee on issues (assignee) where assignee is not null');
      await db.raw('create index issues_cwes on issues using gin (cwes)');
      await db.raw('create index issues_rule on issues (security_rule_id) where security_rule_id is not null');
      await db.raw('create index issues_duplicate on issues (duplicate_of) where duplicate_of is not null');

      await db.schema.createTable('issue_history', (t) => {
        t.bigIncrements('id');
        t.uuid('issue_id').notNullable().references('issues.id').onDelete('CASCADE');
        t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        // user, scan, security_rule or system.
        t.text('actor_kind').notNullable();
        t.text('actor').notNullable();
        t.text('field').notNullable();
        t.text('old_value');
        t.text('new_value');
        t.text('comment');
      });
      await db.raw('create index issue_history_issue on issue_history (issue_id, at desc, id desc)');
      await db.schema.createTable('issue_comments', (t) => {
        t.uuid('id').primary();
        t.uuid('issue_id').notNullable().references('issues.id').onDelete('CASCADE');
        t.text('author').notNullable();
        t.text('message').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create index issue_comments_issue on issue_comments (issue_id, created_at)');
      // One row per scan result ingested: a scan processed again changes nothing.
      await db.schema.createTable('ingested_scans', (t) => {
        t.text('scan_id').primary();
        t.text('check_id').notNullable();
        t.text('layer_id').notNullable();
        t.text('project_code').notNullable();
        t.integer('findings').notNullable();
        t.jsonb('summary').notNullable();
        t.jsonb('quality_gate');
        t.timestamp('ingested_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });

      await db.schema.createTable('dedup_rules', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('tool_name');
        t.specificType('fields', 'text[]').notNullable();
        t.text('scope').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw("create unique index dedup_rules_tool on dedup_rules (coalesce(lower(tool_name), ''))");

      await db.schema.createTable('security_rules', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.jsonb('rule_params').notNullable();
        t.integer('suppressing_status').notNullable().references('statuses.id');
        t.integer('expiry_status').notNullable().references('statuses.id');
        t.timestamp('expires_at', { useTz: true });
        t.boolean('expired').notNullable().defaultTo(false);
        t.text('author').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw(
        'create index security_rules_due on security_rules (expires_at) where not expired and expires_at is not null',
      );

      await db.schema.createTable('quality_gates', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('author').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('gate_conditions', (t) => {
        t.uuid('id').primary();
        t.uuid('quality_gate_id').notNullable().references('quality_gates.id').onDelete('CASCADE');
        t.text('condition_type').notNullable();
        t.text('condition_value').notNullable();
        t.text('operator').notNullable();
        t.integer('value').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('gate_links', (t) => {
        t.text('layer_id').notNullable();
        t.uuid('quality_gate_id').notNullable().references('quality_gates.id').onDelete('CASCADE');
        t.text('project_code').notNullable();
        t.text('action').notNullable();
        t.primary(['layer_id', 'quality_gate_id']);
      });
      await db.schema.createTable('layer_gate_state', (t) => {
        t.text('layer_id').primary();
        t.boolean('locked').notNullable();
        t.text('scan_id').notNullable();
        t.jsonb('verdict').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('policies', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.text('author').notNullable();
        t.specificType('project_tags', 'text[]').notNullable();
        t.jsonb('quality_gates').notNullable().defaultTo('[]');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
  },
  {
    name: '0002_issues_hot_detections',
    async up(db) {
      // A scan that sees an issue again changes only columns outside every index, and pages keep
      // room for the new row version: re-detection is a HOT update that touches no index.
      await db.raw('alter table issues set (fillfactor = 70)');
      await db.raw('drop index issues_project_recent');
      await db.raw('drop index issues_recent');
      await db.raw('create index issues_project_first on issues (project_code, first_detected_at desc, id desc)');
      await db.raw('create index issues_first on issues (first_detected_at desc, id desc)');
    },
  },
  {
    name: '0003_issues_count_index',
    async up(db) {
      // Counts by severity and status over every project read this index alone (index-only scan).
      await db.raw('create index issues_rank_status on issues (severity_rank, status_id, project_code)');
    },
  },
  {
    name: '0004_issue_counts',
    async up(db) {
      // Exact counts without counting rows: every write to issues appends the change of each group's
      // count (statement triggers over the changed rows), so a count over these dimensions sums a few
      // thousand rows instead of visiting every matching issue. Rows are only appended, so concurrent
      // ingestions never wait on each other here; compaction folds them into one row per group.
      await db.schema.createTable('issue_counts', (t) => {
        t.text('project_code').notNullable();
        t.text('tool_name').notNullable();
        t.text('scanner').notNullable();
        t.text('tool_id').notNullable();
        t.text('category').notNullable();
        t.smallint('severity_rank').notNullable();
        t.integer('status_id').notNullable();
        t.bigInteger('n').notNullable();
      });
      await db.raw('create index issue_counts_project on issue_counts (project_code)');
      const dims = 'project_code, tool_name, scanner, tool_id, category, severity_rank, status_id';
      const trigger = async (event: 'insert' | 'update' | 'delete', body: string) => {
        await db.raw(`create function issue_counts_after_${event}() returns trigger language plpgsql as $$
          begin
            insert into issue_counts (${dims}, n) ${body};
            return null;
          end $$`);
        const tables =
          event === 'insert'
            ? 'new table as new_issues'
            : event === 'delete'
              ? 'old table as old_issues'
              : 'old table as old_issues new table as new_issues';
        await db.raw(
          `create trigger issues_counted_${event} after ${event} on issues referencing ${tables} for each statement execute function issue_counts_after_${event}()`,
        );
      };
      await trigger('insert', `select ${dims}, count(*) from new_issues group by ${dims}`);
      await trigger('delete', `select ${dims}, -count(*) from old_issues group by ${dims}`);
      await trigger(
        'update',
        `select ${dims}, sum(n) from (select ${dims}, -1 as n from old_issues union all select ${dims}, 1 from new_issues) d group by ${dims} having sum(n) <> 0`,
      );
      await db.raw(`insert into issue_counts (${dims}, n) select ${dims}, count(*) from issues group by ${dims}`);
      // Counts by severity and status over every project now read issue_counts.
      await db.raw('drop index issues_rank_status');
    },
  },
  {
    name: '0005_ingested_scans_unchanged',
    async up(db) {
      // What an unchanged re-import is compared with: the scan's findings digest (from the scanning
      // service), a digest of what turned them into match keys, and how many issues the scan detected.
      await db.schema.alterTable('ingested_scans', (t) => {
        t.text('findings_digest');
        t.text('keying');
        t.integer('issues');
      });
      await db.raw('create index ingested_scans_check on ingested_scans (check_id, ingested_at)');
    },
  },
  {
    name: '0006_trackers',
    async up(db) {
      await db.schema.createTable('trackers', (t) => {
        t.uuid('id').primary();
        t.text('name').notNullable();
        t.text('type').notNullable();
        t.text('url').notNullable();
        // Sealed with the master key (AES-256-GCM): never returned, never logged.
        t.text('credentials_sealed').notNullable();
        t.jsonb('projects').notNullable();
        t.jsonb('status_mapping').notNullable();
        t.jsonb('field_templates').notNullable();
        t.smallint('jira_api_version').notNullable().defaultTo(3);
        t.boolean('sync_enabled').notNullable().defaultTo(true);
        t.timestamp('last_sync_at', { useTz: true });
        t.text('last_sync_error');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('tracker_tickets', (t) => {
        t.uuid('id').primary();
        t.uuid('tracker_id').notNullable().references('trackers.id').onDelete('CASCADE');
        t.text('key').notNullable();
        t.text('url').notNullable();
        t.text('status');
        t.boolean('closed').notNullable().defaultTo(false);
        t.timestamp('synced_at', { useTz: true });
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.unique(['tracker_id', 'key']);
      });
      // An issue has at most one ticket; a ticket may carry several issues (grouped by rule or CVE).
      await db.schema.createTable('issue_tickets', (t) => {
        t.uuid('issue_id').primary().references('issues.id').onDelete('CASCADE');
        t.uuid('ticket_id').notNullable().references('tracker_tickets.id').onDelete('CASCADE');
        t.timestamp('linked_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create index issue_tickets_ticket on issue_tickets (ticket_id)');
      // Status changes of linked issues still to reach their tickets, written in the transaction of
      // the change; a worker delivers them with retries.
      await db.schema.createTable('tracker_pushes', (t) => {
        t.bigIncrements('id');
        t.uuid('ticket_id').notNullable().references('tracker_tickets.id').onDelete('CASCADE');
        t.uuid('issue_id').notNullable();
        t.integer('to_status').notNullable();
        t.text('actor').notNullable();
        retryQueueColumns(t, db);
      });
      await db.raw('create index tracker_pushes_due on tracker_pushes (next_at) where done_at is null');
    },
  },
  {
    name: '0007_ticket_claims',
    async up(db) {
      // An issue whose ticket is being made: claimed before the tracker is called, so that a second
      // request for the same issue cannot make a second ticket meanwhile.
      await db.schema.createTable('ticket_claims', (t) => {
        t.uuid('issue_id').primary().references('issues.id').onDelete('CASCADE');
        t.timestamp('claimed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
    },
  },
  {
    name: '0008_issue_detection_state',
    async up(db) {
      // What every detection of an issue rewrites (its last scan, detection count and time, and the
      // change time) lives in a narrow table with no index but its key, so re-detecting an unchanged
      // scan is a HOT update of about 100-byte rows instead of a wide row with 14 indexes and the count
      // triggers. Half of each page stays free, so the next re-detection's row versions fit beside
      // the previous ones. The issues themselves move to issue_records; `issues` is a view of both in
      // the columns' former order (a column added to issue_records needs the view created again).
      // Its left join on the key lets the planner leave issue_detection_state out of the queries
      // that read none of its columns (counts, distinct values).
      await db.raw('alter table issues rename to issue_records');
      await db.raw(`create table issue_detection_state (
        issue_id uuid primary key,
        scan_id text not null,
        detections integer not null default 1,
        last_detected_at timestamptz not null,
        updated_at timestamptz not null
      ) with (fillfactor = 50)`);
      await db.raw(
        'insert into issue_detection_state (issue_id, scan_id, detections, last_detected_at, updated_at) select id, scan_id, detections, last_detected_at, updated_at from issue_records',
      );
      await db.raw(
        'alter table issue_records drop column scan_id, drop column detections, drop column last_detected_at, drop column updated_at',
      );
      await db.raw(`create view issues as select
        r.id, r.project_code, r.scope_id, r.match_key, r.layer_id, r.check_id, d.scan_id, r.first_scan_id, r.tool_id, r.tool_name, r.scanner, r.category,
        r.title, r.description, r.severity, r.severity_rank, r.rule_id, r.status_id, r.assignee, r.cve, r.vulnerability_ids, r.cwes, r.lib_name, r.lib_version,
        r.file_path, r.start_line, r.cvss_v2, r.cvss_v3, r.cvss_v4, r.cvss_unknown, r.cvss_max, r.epss, r.known_exploited, r.fingerprint, r.occurrences,
        d.detections, r.suppression, r.security_rule_id, r.duplicate_of, r.first_detected_at, d.last_detected_at, d.updated_at
        from issue_records r left join issue_detection_state d on d.issue_id = r.id`);
      await db.raw('analyze issue_detection_state');
    },
  },
  {
    name: '0009_issue_history_status_at',
    async up(db) {
      // The trend walks back from the open count over a period's status changes: read by time, with
      // the values it needs, so a period costs its changes and not every issue's history.
      await db.raw(
        "create index issue_history_status_at on issue_history (at) include (issue_id, old_value, new_value) where field = 'status'",
      );
    },
  },
  {
    name: '0010_issues_status_may_change',
    async up(db) {
      // An unchanged re-import changes the status only of the issues a detection may change: Fixed
      // (4) ones and those whose finding carried a suppression. They are few, and indexed by project
      // they are found without reading every issue; the index gets an entry only when an issue
      // becomes one of them, so new issues cost nothing more.
      await db.raw(
        'create index issues_status_may_change on issue_records (project_code) where status_id = 4 or suppression is not null',
      );
    },
  },
  {
    name: '0011_detection_findings',
    async up(db) {
      // How many findings of its last scan detected an issue: a rescan's diff can then tell an issue
      // whose findings all vanished (fixed unless an added finding detects it) from one that still
      // has some. Null for issues detected before: a diff touching them reads the whole scan.
      await db.schema.alterTable('issue_detection_state', (t) => t.integer('findings'));
    },
  },
  {
    name: '0012_issue_assignee_and_analysis',
    async up(db) {
      // An assignee is a user or a user group of the identity service (assignee keeps its name, for
      // display and the name filter); the analysis is a CycloneDX VEX statement made by a person.
      // Nullable columns without defaults: adding them rewrites no row.
      await db.schema.alterTable('issue_records', (t) => {
        t.text('assignee_type');
        t.uuid('assignee_id');
        t.text('analysis_state');
        t.text('analysis_justification');
        t.specificType('analysis_response', 'text[]');
        t.text('analysis_detail');
        t.text('analysis_by');
        t.timestamp('analysis_at', { useTz: true });
      });
      await db.raw('create index issues_assignee_id on issue_records (assignee_id) where assignee_id is not null');
      // The view gains the new columns at its end (create or replace keeps the others in place).
      await db.raw(`create or replace view issues as select
        r.id, r.project_code, r.scope_id, r.match_key, r.layer_id, r.check_id, d.scan_id, r.first_scan_id, r.tool_id, r.tool_name, r.scanner, r.category,
        r.title, r.description, r.severity, r.severity_rank, r.rule_id, r.status_id, r.assignee, r.cve, r.vulnerability_ids, r.cwes, r.lib_name, r.lib_version,
        r.file_path, r.start_line, r.cvss_v2, r.cvss_v3, r.cvss_v4, r.cvss_unknown, r.cvss_max, r.epss, r.known_exploited, r.fingerprint, r.occurrences,
        d.detections, r.suppression, r.security_rule_id, r.duplicate_of, r.first_detected_at, d.last_detected_at, d.updated_at,
        r.assignee_type, r.assignee_id, r.analysis_state, r.analysis_justification, r.analysis_response, r.analysis_detail, r.analysis_by, r.analysis_at
        from issue_records r left join issue_detection_state d on d.issue_id = r.id`);
    },
  },
  {
    name: '0013_risk_acceptances',
    async up(db) {
      // A risk acceptance of issues of one project: requested by one person, optionally approved by a
      // second, ending at expires_at, when the issues it still holds reopen.
      await db.schema.createTable('risk_acceptances', (t) => {
        t.uuid('id').primary();
        t.text('project_code').notNullable();
        t.text('state').notNullable();
        t.text('reason').notNullable();
        t.text('requested_by').notNullable();
        t.uuid('requested_by_id').notNullable();
        t.timestamp('requested_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.uuid('approver_id');
        t.text('approver');
        t.text('decided_by');
        t.timestamp('decided_at', { useTz: true });
        t.text('decision_comment');
      });
      await db.raw('create index risk_acceptances_project on risk_acceptances (project_code, requested_at desc)');
      await db.raw(
        "create index risk_acceptances_due on risk_acceptances (expires_at) where state in ('pending', 'accepted')",
      );
      await db.schema.createTable('risk_acceptance_issues', (t) => {
        t.uuid('risk_acceptance_id').notNullable().references('risk_acceptances.id').onDelete('CASCADE');
        t.uuid('issue_id').notNullable().references('issue_records.id').onDelete('CASCADE');
        t.primary(['risk_acceptance_id', 'issue_id']);
      });
      await db.raw('create index risk_acceptance_issues_issue on risk_acceptance_issues (issue_id)');
    },
  },
  {
    name: '0014_exploit_intelligence',
    async up(db) {
      // At most one row, written by the first change through the API (until then the defaults of the
      // configuration apply); next_run_at is claimed by the replica that fetches.
      await db.schema.createTable('intel_settings', (t) => {
        t.smallint('id').primary();
        t.boolean('enabled').notNullable();
        t.text('epss_url').notNullable();
        t.text('kev_url').notNullable();
        t.integer('interval_hours').notNullable();
        t.timestamp('next_run_at', { useTz: true });
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      // What is loaded of each feed, and the last attempt's failure (the data stays the last good one).
      await db.schema.createTable('intel_feeds', (t) => {
        t.text('feed').primary();
        t.integer('records').notNullable().defaultTo(0);
        t.text('version');
        t.text('model_version');
        t.text('origin');
        t.timestamp('loaded_at', { useTz: true });
        t.timestamp('attempted_at', { useTz: true });
        t.text('error');
      });
      await db('intel_feeds').insert([{ feed: 'epss' }, { feed: 'kev' }]);
      // Replaced whole by each load (a new table renamed in place in one transaction).
      await db.raw(
        'create table intel_epss (cve text primary key, epss double precision not null, percentile double precision not null)',
      );
      await db.raw(
        'create table intel_kev (cve text primary key, date_added date not null, due_date date, ransomware boolean not null)',
      );
      // The feeds' values beside the scanner's own (epss, known_exploited): the view shows the feed's
      // where it has one and the scanner's otherwise, so neither overwrites the other. Nullable
      // columns without defaults: adding them rewrites no row.
      await db.schema.alterTable('issue_records', (t) => {
        t.double('intel_epss');
        t.double('intel_epss_percentile');
        t.boolean('intel_known_exploited');
        t.date('kev_due_date');
      });
      await db.raw(`create or replace view issues as select
        ${VIEW_COLUMNS_0014}
        from issue_records r left join issue_detection_state d on d.issue_id = r.id`);
    },
  },
  {
    name: '0015_issue_saved_views',
    async up(db) {
      // A user's named views of the issue list (the list's query parameters); user ids are identity's.
      await db.schema.createTable('issue_saved_views', (t) => {
        t.uuid('id').primary();
        t.uuid('user_id').notNullable();
        t.text('name').notNullable();
        t.text('query').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.unique(['user_id', 'name']);
      });
    },
  },
  {
    name: '0016_risk_score',
    async up(db) {
      // The project's criticality as the catalog last gave it (at an ingestion), to tell a change.
      await db.schema.createTable('project_criticality', (t) => {
        t.text('project_code').primary();
        t.text('criticality').notNullable();
      });
      // The risk score (README "Issues", risk score) is computed by PostgreSQL from the row itself, so
      // every write that changes a factor (an ingestion, a feed, the project's criticality) keeps it
      // right without a statement of its own. Adding a stored column rewrites issue_records once.
      await db.schema.alterTable('issue_records', (t) => t.text('project_criticality'));
      await db.raw(`alter table issue_records add column risk_score smallint not null generated always as (round(100
        * (case when cvss_max is not null then least(greatest(cvss_max, 0), 10) / 10
                else case severity_rank when 5 then 1.0 when 4 then 0.8 when 3 then 0.5 when 2 then 0.25 else 0.05 end end)
        * (case when known_exploited or coalesce(intel_known_exploited, false) then 1.0
                when coalesce(intel_epss, epss) is not null then 0.3 + 0.7 * least(greatest(coalesce(intel_epss, epss), 0), 1)
                else 0.5 end)
        * (case project_criticality when 'critical' then 1.0 when 'high' then 0.9 when 'low' then 0.6 else 0.8 end))::smallint) stored`);
      // sort=-risk_score pages by keyset, over every project and within one.
      await db.raw('create index issues_risk on issue_records (risk_score desc, id desc)');
      await db.raw('create index issues_project_risk on issue_records (project_code, risk_score desc, id desc)');
      await db.raw(`create or replace view issues as select
        ${VIEW_COLUMNS_0016}
        from issue_records r left join issue_detection_state d on d.issue_id = r.id`);
    },
  },
  {
    name: '0017_assistants',
    async up(db) {
      // At most one row, written by the first change through the API (until then write tools are off).
      await db.schema.createTable('assistant_settings', (t) => {
        t.smallint('id').primary();
        t.boolean('write_tools').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      // The client a person acted through (mcp: an AI assistant); a nullable column without a default rewrites no row.
      await db.schema.alterTable('issue_history', (t) => t.text('via'));
    },
  },
  slaMigration,
  {
    name: '0019_history_reason',
    async up(db) {
      // Why an ingestion changed a status (README "Issues", history): a structured value beside the comment.
      await db.schema.alterTable('issue_history', (t) => t.jsonb('reason'));
    },
  },
  catalogProjectsMigration,
  riskAcceptanceRevocationMigration,
  pullRequestDecorationsMigration,
  issueCountsDuplicatesMigration,
  baseBranchScansMigration,
  intelEnrichmentByCveMigration,
  slaRedateByChangeMigration,
  branchScanSetsOnDemandMigration,
];
