import { gunzipSync } from 'node:zlib';
import type { Queryable } from '@bulwark/platform';
import type { Finding } from '@bulwark/findings';
import { FINDINGS_BATCH, PreparedReport } from '../scans/report-import';

/** A completed scan of the check whose report had the same import key: its findings can be copied. */
export interface SameImport {
  scanId: string;
  format: string;
  findingsCount: number;
  severityCounts: Record<string, number>;
  digest: string;
}

export const findingStore = {
  /** Stores a prepared report and its findings; each batch is one statement that PostgreSQL parses from one JSON array. */
  async insertPrepared(db: Queryable, scanId: string, report: PreparedReport, file: { fileName: string; contentType: string; importKey?: string }): Promise<void> {
    await db('scan_reports').insert({
      scan_id: scanId, file_name: file.fileName, content_type: file.contentType, size: report.size, gzip: Buffer.from(report.gzip), import_key: file.importKey ?? null,
    });
    // Every batch but the last is full, so a batch's first sequence number follows from its index.
    for (const [i, batch] of report.batches.entries()) {
      await db.raw(
        `insert into scan_findings (scan_id, seq, fingerprint, severity, finding)
         select ?, ? + t.n, t.f->>'fingerprint', t.f->>'severity', t.f from jsonb_array_elements(?::jsonb) with ordinality as t(f, n)`,
        [scanId, i * FINDINGS_BATCH, batch],
      );
    }
  },

  /** The latest completed scan of the check whose report had this import key and whose findings digest is known. */
  async sameImport(db: Queryable, checkId: string, importKey: string): Promise<SameImport | undefined> {
    const row = await db('scans as s')
      .join('scan_reports as r', 'r.scan_id', 's.id')
      .where({ 's.check_id': checkId, 's.state': 'completed', 'r.import_key': importKey })
      .whereNotNull('s.findings_digest')
      .orderBy('s.created_at', 'desc')
      .first('s.id', 's.report_format', 's.findings_count', 's.severity_counts', 's.findings_digest');
    if (!row) return undefined;
    const counts = typeof row.severity_counts === 'string' ? JSON.parse(row.severity_counts) : row.severity_counts;
    return { scanId: row.id, format: row.report_format, findingsCount: row.findings_count, severityCounts: counts, digest: row.findings_digest };
  },

  /**
   * Copies a scan's report and findings to another scan inside the database (no parsing, no JSON in
   * this process). False when the source scan is gone (deleted meanwhile): nothing was copied then.
   */
  async copyImport(db: Queryable, scanId: string, from: SameImport, fileName: string): Promise<boolean> {
    const source = await db('scans').where({ id: from.scanId }).forShare().first('id');
    if (!source) return false;
    await db.raw(
      `insert into scan_reports (scan_id, file_name, content_type, size, gzip, import_key)
       select ?, ?, content_type, size, gzip, import_key from scan_reports where scan_id = ?`,
      [scanId, fileName, from.scanId],
    );
    await db.raw(
      `insert into scan_findings (scan_id, seq, fingerprint, severity, finding)
       select ?, seq, fingerprint, severity, finding from scan_findings where scan_id = ?`,
      [scanId, from.scanId],
    );
    return true;
  },

  /** One chunk of a scan's findings after `afterSeq` as JSON text, for the hand-over to the issues service. */
  async chunk(db: Queryable, scanId: string, afterSeq: number, limit: number): Promise<{ seq: number; findingJson: string }[]> {
    return db('scan_findings').select('seq', db.raw('finding::text as "findingJson"')).where('scan_id', scanId).andWhere('seq', '>', afterSeq).orderBy('seq').limit(limit);
  },

  async page(db: Queryable, scanId: string, q: { page: number; limit: number; severity?: string }): Promise<{ items: Finding[]; total: number }> {
    const base = db('scan_findings').where('scan_id', scanId);
    if (q.severity) base.where('severity', q.severity);
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows: { finding: unknown }[] = await base.clone().orderBy('seq').limit(q.limit).offset((q.page - 1) * q.limit);
    return { items: rows.map((r) => (typeof r.finding === 'string' ? JSON.parse(r.finding) : r.finding) as Finding), total: Number(count) };
  },

  async report(db: Queryable, scanId: string): Promise<{ fileName: string; contentType: string; bytes: Buffer } | undefined> {
    const row = await db('scan_reports').where({ scan_id: scanId }).first();
    if (!row) return undefined;
    return { fileName: row.file_name, contentType: row.content_type, bytes: gunzipSync(Buffer.from(row.gzip)) };
  },
};
