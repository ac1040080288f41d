import { pgArray, Queryable } from '@bulwark/platform';
import type { IssueRow } from './rows';

export const issueRecords = {
  async get(db: Queryable, id: string): Promise<IssueRow | undefined> {
    return db<IssueRow>('issues').where({ id }).first();
  },

  /**
   * The issues with these ids, their records locked until the transaction ends (every change of an
   * issue locks its record first). Read after the lock, so they are as the last change left them.
   */
  async getMany(db: Queryable, ids: string[]): Promise<IssueRow[]> {
    if (ids.length === 0) return [];
    await db.raw('select id from issue_records where id = any(?::uuid[]) for update', [pgArray(ids)]);
    return db<IssueRow>('issues').whereRaw('id = any(?::uuid[])', [pgArray(ids)]);
  },

  async update(
    db: Queryable,
    id: string,
    patch: Partial<Pick<IssueRow, 'status_id' | 'assignee' | 'security_rule_id' | 'duplicate_of'>>,
    at: string,
  ): Promise<void> {
    if (Object.keys(patch).length > 0) await db('issue_records').where({ id }).update(patch);
    await db('issue_detection_state').where({ issue_id: id }).update({ updated_at: at });
  },

  async deleteMany(db: Queryable, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await db.raw<{ rows: { id: string }[] }>(
      `with gone as (delete from issue_records where id = any(?::uuid[]) returning id),
       state as (delete from issue_detection_state d using gone where d.issue_id = gone.id)
       select id from gone`,
      [pgArray(ids)],
    );
    return rows.map((r) => r.id);
  },

  /** A layer's issues about a dependency (naming a library or a CVE), duplicates left out: what its VEX states. */
  layerVulnerabilities(db: Queryable, layerId: string): Promise<IssueRow[]> {
    return db<IssueRow>('issues')
      .where({ layer_id: layerId })
      .whereNull('duplicate_of')
      .where((w) => {
        w.whereNotNull('lib_name').orWhereNotNull('cve');
      })
      .orderBy('severity_rank', 'desc')
      .orderBy('first_detected_at')
      .orderBy('id');
  },

  /** Issues of the same project that look like the same problem: same CVE and package, or same CWE, file and line. */
  async similar(db: Queryable, issue: IssueRow): Promise<IssueRow[]> {
    return db('issues')
      .where('project_code', issue.project_code)
      .whereNot('id', issue.id)
      .where((w) => {
        if (issue.cve && issue.lib_name) w.orWhere({ cve: issue.cve, lib_name: issue.lib_name });
        if (issue.cwes.length && issue.file_path && issue.start_line !== null) {
          w.orWhere((x) => {
            x.whereRaw('cwes && ?::int[]', [pgArray(issue.cwes)]).andWhere({
              file_path: issue.file_path,
              start_line: issue.start_line,
            });
          });
        }
        if (!(issue.cve && issue.lib_name) && !(issue.cwes.length && issue.file_path && issue.start_line !== null))
          w.whereRaw('false');
      })
      .orderBy('first_detected_at')
      .limit(100);
  },

  /** Open issues a security rule covers, by the rule's parameters in SQL (the same rules as ruleMatches). */
  async coveredByRule(
    db: Queryable,
    p: {
      instrumentType?: string;
      toolName?: string;
      category?: string;
      cve?: string;
      cwe?: number;
      projectCodes?: string[];
    },
    statuses: number[],
  ): Promise<Pick<IssueRow, 'id' | 'status_id'>[]> {
    const q = db('issue_records')
      .select('id', 'status_id')
      .whereRaw('status_id = any(?::int[])', [pgArray(statuses)])
      .forUpdate();
    if (p.instrumentType) q.whereRaw('lower(category) = lower(?)', [p.instrumentType]);
    if (p.category) q.whereRaw('lower(category) = lower(?)', [p.category]);
    if (p.toolName) q.whereRaw('(lower(tool_name) = lower(?) or lower(scanner) = lower(?))', [p.toolName, p.toolName]);
    if (p.cve) q.whereRaw(`upper(?) = any(vulnerability_ids)`, [p.cve]);
    if (p.cwe !== undefined) q.whereRaw('cwes @> ?::int[]', [pgArray([p.cwe])]);
    if (p.projectCodes) q.whereRaw('project_code = any(?::text[])', [pgArray(p.projectCodes)]);
    return q;
  },

  async bySecurityRule(db: Queryable, ruleId: string, status: number): Promise<Pick<IssueRow, 'id' | 'status_id'>[]> {
    return db('issue_records')
      .select('id', 'status_id')
      .where({ security_rule_id: ruleId, status_id: status })
      .forUpdate();
  },

  async setStatusMany(db: Queryable, ids: string[], status: number, ruleId: string | null, at: string): Promise<void> {
    if (ids.length === 0) return;
    await db.raw(
      `with changed as (update issue_records set status_id = ?, security_rule_id = ? where id = any(?::uuid[]) returning id)
       update issue_detection_state d set updated_at = ? from changed where d.issue_id = changed.id`,
      [status, ruleId, pgArray(ids), at],
    );
  },
};
