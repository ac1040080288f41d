import type { Migration } from '@bulwark/platform';

export const migrations: Migration[] = [
  {
    name: '0001_checks_and_scans',
    async up(db) {
      await db.schema.createTable('check_groups', (t) => {
        t.uuid('id').primary();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.schema.createTable('checks', (t) => {
        t.uuid('id').primary();
        t.uuid('group_id').references('check_groups.id').onDelete('SET NULL');
        t.uuid('layer_id').notNullable();
        t.text('project_code').notNullable();
        t.uuid('security_tool_id').notNullable();
        t.uuid('scan_source_id').notNullable();
        // Non-secret tool settings; a check-level api_token is sealed apart.
        t.jsonb('tool_settings').notNullable().defaultTo('{}');
        t.text('tool_token_sealed');
        t.jsonb('source_auth').notNullable().defaultTo('{}');
        t.jsonb('run_scan_task').notNullable().defaultTo('{"type":"manual"}');
        t.text('tag_name');
        t.text('commit');
        t.jsonb('comparison').notNullable().defaultTo('{"mode":"previous"}');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create index checks_group on checks (group_id) where group_id is not null');
      await db.raw('create index checks_layer on checks (layer_id)');
      await db.raw('create index checks_source on checks (scan_source_id)');
      await db.raw('create index checks_tool on checks (security_tool_id)');

      await db.schema.createTable('scans', (t) => {
        t.uuid('id').primary();
        t.uuid('check_id').notNullable();
        t.uuid('layer_id').notNullable();
        t.text('project_code').notNullable();
        t.uuid('security_tool_id').notNullable();
        t.integer('tool_type_id').notNullable();
        // scan: run by a runner; upload: a report sent through the API.
        t.text('kind').notNullable();
        t.text('state').notNullable();
        t.integer('progress').notNullable().defaultTo(0);
        t.text('stage');
        t.text('error');
        t.text('requested_by');
        t.integer('attempts').notNullable().defaultTo(0);
        t.text('lease_owner');
        t.timestamp('lease_until', { useTz: true });
        t.boolean('stop_requested').notNullable().defaultTo(false);
        t.integer('findings_count');
        t.jsonb('severity_counts');
        t.text('report_format');
        t.jsonb('quality_gate');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
        t.timestamp('started_at', { useTz: true });
        t.timestamp('finished_at', { useTz: true });
      });
      await db.raw(`create index scans_queue on scans (created_at) where state = 'queued'`);
      await db.raw(`create index scans_inflight on scans (check_id) where state in ('queued', 'running', 'parsing')`);
      await db.raw('create index scans_check on scans (check_id, created_at desc)');

      // The raw report as the scanner wrote it (gzip), kept for download and re-parsing.
      await db.schema.createTable('scan_reports', (t) => {
        t.uuid('scan_id').primary().references('scans.id').onDelete('CASCADE');
        t.text('file_name').notNullable();
        t.text('content_type').notNullable();
        t.bigInteger('size').notNullable();
        t.binary('gzip').notNullable();
      });
      // Normalized findings, handed to the issues service in chunks by sequence number.
      await db.schema.createTable('scan_findings', (t) => {
        t.uuid('scan_id').notNullable().references('scans.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.text('fingerprint').notNullable();
        t.text('severity').notNullable();
        t.jsonb('finding').notNullable();
        t.primary(['scan_id', 'seq']);
      });
    },
  },
  {
    name: '0002_finding_match_index',
    async up(db) {
      // Comparisons of two scans match findings by fingerprint.
      await db.raw('create index scan_findings_match on scan_findings (scan_id, fingerprint)');
    },
  },
  {
    name: '0003_sboms',
    async up(db) {
      await db.schema.createTable('sboms', (t) => {
        t.uuid('id').primary();
        t.uuid('layer_id').notNullable();
        t.text('project_code').notNullable();
        t.text('project_name').notNullable();
        t.text('format').notNullable();
        t.text('file_name').notNullable();
        t.integer('components_count').notNullable();
        t.integer('vulnerabilities_count').notNullable();
        t.text('uploaded_by');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
      });
      await db.raw('create index sboms_layer on sboms (layer_id, created_at desc)');
      // The components of each layer's latest SBOM: an upload replaces the layer's list.
      await db.schema.createTable('dependencies', (t) => {
        t.bigIncrements('id').primary();
        t.uuid('sbom_id').notNullable().references('sboms.id').onDelete('CASCADE');
        t.uuid('layer_id').notNullable();
        t.text('project_code').notNullable();
        t.text('project_name').notNullable();
        t.text('name').notNullable();
        t.text('version');
        t.text('type');
        t.text('purl');
      });
      await db.raw('create index dependencies_layer on dependencies (layer_id, name)');
    },
  },
  {
    name: '0004_scan_traceparent',
    async up(db) {
      // A queued scan runs later in a worker: this keeps it in the trace of the request that queued it.
      await db.schema.alterTable('scans', (t) => t.text('traceparent'));
    },
  },
  {
    name: '0005_unchanged_uploads',
    async up(db) {
      // A report uploaded again unchanged is recognised by its import key and its findings are copied,
      // not parsed again; the copy's digest is the previous scan's.
      await db.schema.alterTable('scans', (t) => t.text('findings_digest'));
      await db.schema.alterTable('scan_reports', (t) => t.text('import_key'));
    },
  },
  {
    name: '0006_report_chunks',
    async up(db) {
      // A report is stored as it streams in: its gzip in rows of about 1 MiB, in order, never one value
      // built in memory. Reports stored before keep their one `gzip` value (new rows leave it null).
      await db.schema.createTable('scan_report_chunks', (t) => {
        t.uuid('scan_id').notNullable().references('scans.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.binary('bytes').notNullable();
        t.primary(['scan_id', 'seq']);
      });
      await db.raw('alter table scan_reports alter column gzip drop not null');
    },
  },
  {
    name: '0007_shared_findings',
    async up(db) {
      // An unchanged upload stores no findings or report rows of its own: it reads those of the scan
      // named here (always one that holds its own, so there is no chain). No cascade: deleting that
      // scan alone is refused while another still reads its rows; deleting both at once is not.
      await db.schema.alterTable('scans', (t) => t.uuid('findings_of').references('scans.id'));
      await db.raw('create index scans_findings_of on scans (findings_of) where findings_of is not null');
    },
  },
  {
    name: '0008_rescan_diffs',
    async up(db) {
      // A scan's findings by content (one hash each, in sequence order, in one value: read whole to
      // compare the next scan with it), and what a rescan changed against the check's previous scan,
      // so the issues service reads only those findings.
      await db.schema.createTable('scan_content_hashes', (t) => {
        t.uuid('scan_id').primary().references('scans.id').onDelete('CASCADE');
        t.binary('hashes').notNullable();
      });
      await db.schema.createTable('scan_diffs', (t) => {
        t.uuid('scan_id').primary().references('scans.id').onDelete('CASCADE');
        t.uuid('base_scan_id').notNullable().references('scans.id').onDelete('CASCADE');
        t.specificType('added', 'int[]').notNullable();
        t.specificType('vanished', 'int[]').notNullable();
      });
      await db.raw('create index scan_diffs_base on scan_diffs (base_scan_id)');
    },
  },
  {
    name: '0009_finding_refs',
    async up(db) {
      // A rescan stores only the findings the check's previous scan did not have; the others are
      // references to the rows of the scan that stored them (never a chain: always a scan with the
      // row itself). No cascade on the holder: deleting it alone is refused while a scan references it.
      await db.schema.createTable('scan_finding_refs', (t) => {
        t.uuid('scan_id').notNullable().references('scans.id').onDelete('CASCADE');
        t.uuid('holder_id').notNullable().references('scans.id');
        t.specificType('scan_seqs', 'int[]').notNullable();
        t.specificType('holder_seqs', 'int[]').notNullable();
        t.text('detected_at');
        t.primary(['scan_id', 'holder_id']);
      });
      await db.raw('create index scan_finding_refs_holder on scan_finding_refs (holder_id)');
    },
  },
  {
    name: '0010_dependency_licenses',
    async up(db) {
      // Each component's licences as its SBOM states them (SPDX ids, names or expressions); none for the ones stored before.
      await db.schema.alterTable('dependencies', (t) =>
        t.specificType('licenses', 'text[]').notNullable().defaultTo('{}'),
      );
    },
  },
  {
    name: '0011_scan_pull_request',
    async up(db) {
      // The pull request an upload was of ({ number, head_sha, base_branch }); null for the rest, without a rewrite.
      await db.schema.alterTable('scans', (t) => t.jsonb('pull_request'));
    },
  },
];
