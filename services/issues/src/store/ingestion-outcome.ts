import type { Queryable } from '@bulwark/platform';
import type { ChangeReason } from '../domain/change-reason';

export type OutcomeKind = 'new' | 'unchanged' | 'fixed' | 'reopened' | 'suppressed' | 'duplicate';

/** One issue as a scan's ingestion left it, with why when the ingestion changed its status. */
export interface OutcomeExample {
  kind: OutcomeKind;
  id: string;
  title: string;
  severity: string;
  fingerprint: string;
  scanner: string;
  duplicateOf: string | null;
  reason: ChangeReason | null;
}

type OutcomeRow = Omit<OutcomeExample, 'duplicateOf'> & { duplicate_of: string | null; total: string };

export const ingestionOutcomeStore = {
  /**
   * What the ingestion of `scan` at `at` did, read back inside its own transaction: every issue it
   * detected or changed in one kind (a status change by its recorded reason, else new when the scan
   * found it first, duplicate when linked to another, unchanged otherwise), counted, with the first
   * `limit` of each kind (most severe first). One statement whatever the scan's size; the issues it
   * detected are looked for among its project's (a scan matches no other project's issues), as
   * issue_detection_state has no index but its key.
   */
  async of(
    db: Queryable,
    scan: { id: string; projectCode: string },
    at: string,
    limit: number,
  ): Promise<{ counts: Map<OutcomeKind, number>; examples: OutcomeExample[] }> {
    const { rows } = await db.raw<{ rows: OutcomeRow[] }>(
      `with changed as (
         select h.issue_id as id, h.reason from issue_history h
         where h.field = 'status' and h.at = ?::timestamptz and h.reason->>'scan_id' = ?
       ),
       touched as (
         select coalesce(d.issue_id, c.id) as id, c.reason
         from (
           select d.issue_id from issue_records r join issue_detection_state d on d.issue_id = r.id
           where r.project_code = ? and d.scan_id = ?
         ) d full join changed c on c.id = d.issue_id
       ),
       kinds as (
         select t.id, t.reason, r.title, r.severity, r.severity_rank, r.fingerprint, r.scanner, r.duplicate_of,
           case t.reason->>'kind'
             when 'fixed' then 'fixed' when 'reopened' then 'reopened'
             when 'security_rule' then 'suppressed' when 'report_suppression' then 'suppressed'
             else case when r.first_scan_id = ? then 'new' when r.duplicate_of is not null then 'duplicate' else 'unchanged' end
           end as kind
         from touched t join issue_records r on r.id = t.id
       ),
       ranked as (
         select k.*, row_number() over (partition by kind order by severity_rank desc, id) as n,
           count(*) over (partition by kind) as total
         from kinds k
       )
       select kind, id, title, severity, fingerprint, scanner, duplicate_of, reason, total from ranked where n <= ? order by kind, n`,
      [at, scan.id, scan.projectCode, scan.id, scan.id, limit],
    );
    const counts = new Map<OutcomeKind, number>();
    for (const r of rows) counts.set(r.kind, Number(r.total));
    return {
      counts,
      examples: rows.map(({ duplicate_of: duplicateOf, total: _total, ...r }) => ({ ...r, duplicateOf })),
    };
  },
};
