import { pgArray, Queryable } from '@bulwark/platform';
import { IssueAnalysis, IssueRecord, IssueRow, toIssueRecord } from './rows';

/** The fields of an issue a person (or a tracker) changes directly. */
export interface IssuePatch {
  statusId?: number;
  assignee?: string | null;
  /** A user or group of the identity service; left out by a free-text assignee (PUT /issue/{id}). */
  assigneeRef?: { type: 'user' | 'group'; id: string } | null;
  analysis?: Omit<IssueAnalysis, 'at'> | null;
  securityRuleId?: string | null;
  duplicateOf?: string | null;
}

const patchColumns = (p: IssuePatch) => ({
  ...(p.statusId !== undefined ? { status_id: p.statusId } : {}),
  ...(p.assignee !== undefined ? { assignee: p.assignee } : {}),
  ...(p.assigneeRef !== undefined || p.assignee !== undefined
    ? { assignee_type: p.assigneeRef?.type ?? null, assignee_id: p.assigneeRef?.id ?? null }
    : {}),
  ...(p.analysis !== undefined
    ? {
        analysis_state: p.analysis?.state ?? null,
        analysis_justification: p.analysis?.justification ?? null,
        analysis_response: p.analysis ? pgArray(p.analysis.response) : null,
        analysis_detail: p.analysis?.detail ?? null,
        analysis_by: p.analysis?.by ?? null,
      }
    : {}),
  ...(p.securityRuleId !== undefined ? { security_rule_id: p.securityRuleId } : {}),
  ...(p.duplicateOf !== undefined ? { duplicate_of: p.duplicateOf } : {}),
});

/** An open issue a security rule holds or may take: what its status change needs. */
export interface IssueStatus {
  id: string;
  statusId: number;
}

type IssueStatusRow = Pick<IssueRow, 'id' | 'status_id'>;
const toIssueStatus = (r: IssueStatusRow): IssueStatus => ({ id: r.id, statusId: r.status_id });

export const issueRecords = {
  async get(db: Queryable, id: string): Promise<IssueRecord | undefined> {
    const row = await db<IssueRow>('issues').where({ id }).first();
    return row ? toIssueRecord(row) : undefined;
  },

  /**
   * The issues with these ids, their records locked until the transaction ends (every change of an
   * issue locks its record first). Read after the lock, so they are as the last change left them.
   * Locked in id order, so two changes of overlapping sets wait for each other rather than deadlock.
   */
  async getMany(db: Queryable, ids: string[]): Promise<IssueRecord[]> {
    if (ids.length === 0) return [];
    await db.raw('select id from issue_records where id = any(?::uuid[]) order by id for update', [pgArray(ids)]);
    return (await db<IssueRow>('issues').whereRaw('id = any(?::uuid[])', [pgArray(ids)])).map(toIssueRecord);
  },

  async update(db: Queryable, id: string, patch: IssuePatch, at: string): Promise<void> {
    const columns = {
      ...patchColumns(patch),
      ...(patch.analysis !== undefined ? { analysis_at: patch.analysis && at } : {}),
    };
    if (Object.keys(columns).length > 0) await db('issue_records').where({ id }).update(columns);
    await db('issue_detection_state').where({ issue_id: id }).update({ updated_at: at });
  },

  /** Gives these issues one assignee (a user or group with its name, a free-text name, or none). */
  async assignMany(
    db: Queryable,
    ids: string[],
    assignee: { type: 'user' | 'group' | null; id: string | null; name: string } | null,
    at: string,
  ): Promise<void> {
    if (ids.length === 0) return;
    await db.raw(
      `with changed as (update issue_records set assignee = ?, assignee_type = ?, assignee_id = ? where id = any(?::uuid[]) returning id)
       update issue_detection_state d set updated_at = ? from changed where d.issue_id = changed.id`,
      [assignee?.name ?? null, assignee?.type ?? null, assignee?.id ?? null, pgArray(ids), at],
    );
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
  async layerVulnerabilities(db: Queryable, layerId: string): Promise<IssueRecord[]> {
    const rows = await db<IssueRow>('issues')
      .where({ layer_id: layerId })
      .whereNull('duplicate_of')
      .where((w) => {
        w.whereNotNull('lib_name').orWhereNotNull('cve');
      })
      .orderBy('severity_rank', 'desc')
      .orderBy('first_detected_at')
      .orderBy('id');
    return rows.map(toIssueRecord);
  },

  /** Issues of the same project that look like the same problem: same CVE and package, or same CWE, file and line. */
  async similar(db: Queryable, issue: IssueRecord): Promise<IssueRecord[]> {
    const rows = await db<IssueRow>('issues')
      .where('project_code', issue.projectCode)
      .whereNot('id', issue.id)
      .where((w) => {
        if (issue.cve && issue.libName) w.orWhere({ cve: issue.cve, lib_name: issue.libName });
        if (issue.cwes.length && issue.filePath && issue.startLine !== null) {
          w.orWhere((x) => {
            x.whereRaw('cwes && ?::int[]', [pgArray(issue.cwes)]).andWhere({
              file_path: issue.filePath,
              start_line: issue.startLine,
            });
          });
        }
        if (!(issue.cve && issue.libName) && !(issue.cwes.length && issue.filePath && issue.startLine !== null))
          w.whereRaw('false');
      })
      .orderBy('first_detected_at')
      .limit(100);
    return rows.map(toIssueRecord);
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
  ): Promise<IssueStatus[]> {
    const q = db<IssueStatusRow>('issue_records')
      .select('id', 'status_id')
      .whereRaw('status_id = any(?::int[])', [pgArray(statuses)])
      .forUpdate();
    if (p.instrumentType) q.whereRaw('lower(category) = lower(?)', [p.instrumentType]);
    if (p.category) q.whereRaw('lower(category) = lower(?)', [p.category]);
    if (p.toolName) q.whereRaw('(lower(tool_name) = lower(?) or lower(scanner) = lower(?))', [p.toolName, p.toolName]);
    if (p.cve) q.whereRaw(`upper(?) = any(vulnerability_ids)`, [p.cve]);
    if (p.cwe !== undefined) q.whereRaw('cwes @> ?::int[]', [pgArray([p.cwe])]);
    if (p.projectCodes) q.whereRaw('project_code = any(?::text[])', [pgArray(p.projectCodes)]);
    return (await q).map(toIssueStatus);
  },

  async bySecurityRule(db: Queryable, ruleId: string, status: number): Promise<IssueStatus[]> {
    const rows = await db('issue_records')
      .select<IssueStatusRow[]>('id', 'status_id')
      .where({ security_rule_id: ruleId, status_id: status })
      .forUpdate();
    return rows.map(toIssueStatus);
  },

  /** Gives these issues one status in one statement; `ruleId` undefined keeps the suppressing rule each has. */
  async setStatusMany(
    db: Queryable,
    ids: string[],
    status: number,
    ruleId: string | null | undefined,
    at: string,
  ): Promise<void> {
    if (ids.length === 0) return;
    const rule = ruleId === undefined ? '' : ', security_rule_id = ?';
    await db.raw(
      `with changed as (update issue_records set status_id = ?${rule} where id = any(?::uuid[]) returning id)
       update issue_detection_state d set updated_at = ? from changed where d.issue_id = changed.id`,
      [status, ...(ruleId === undefined ? [] : [ruleId]), pgArray(ids), at],
    );
  },
};
