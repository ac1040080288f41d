import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Queryable } from '@bulwark/platform';
import type { Finding } from '@bulwark/findings';

const BATCH = 500;

export const findingStore = {
  /**
   * Stores a scan's findings in batches (never one row per round trip) and returns the digest of the
   * stored findings in order: two scans with the same digest hand the issues service the same findings.
   */
  async insertAll(db: Queryable, scanId: string, findings: Finding[]): Promise<string> {
    const digest = createHash('sha256');
    for (let i = 0; i < findings.length; i += BATCH) {
      const rows = findings.slice(i, i + BATCH).map((f, j) => {
        const finding = JSON.stringify(f);
        digest.update(finding).update('\n');
        return { scan_id: scanId, seq: i + j + 1, fingerprint: f.fingerprint, severity: f.severity, finding };
      });
      await db('scan_findings').insert(rows);
    }
    return digest.digest('hex');
  },

  /** One chunk of a scan's findings after `afterSeq`, for the hand-over to the issues service. */
  async chunk(db: Queryable, scanId: string, afterSeq: number, limit: number): Promise<{ seq: number; finding: Finding }[]> {
    const rows: { seq: number; finding: unknown }[] = await db('scan_findings').where('scan_id', scanId).andWhere('seq', '>', afterSeq).orderBy('seq').limit(limit);
    return rows.map((r) => ({ seq: r.seq, finding: (typeof r.finding === 'string' ? JSON.parse(r.finding) : r.finding) as Finding }));
  },

  async page(db: Queryable, scanId: string, q: { page: number; limit: number; severity?: string }): Promise<{ items: Finding[]; total: number }> {
    const base = db('scan_findings').where('scan_id', scanId);
    if (q.severity) base.where('severity', q.severity);
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows: { finding: unknown }[] = await base.clone().orderBy('seq').limit(q.limit).offset((q.page - 1) * q.limit);
    return { items: rows.map((r) => (typeof r.finding === 'string' ? JSON.parse(r.finding) : r.finding) as Finding), total: Number(count) };
  },

  async saveReport(db: Queryable, scanId: string, fileName: string, contentType: string, bytes: Buffer): Promise<void> {
    await db('scan_reports').insert({ scan_id: scanId, file_name: fileName, content_type: contentType, size: bytes.length, gzip: gzipSync(bytes) });
  },

  async report(db: Queryable, scanId: string): Promise<{ fileName: string; contentType: string; bytes: Buffer } | undefined> {
    const row = await db('scan_reports').where({ scan_id: scanId }).first();
    if (!row) return undefined;
    return { fileName: row.file_name, contentType: row.content_type, bytes: gunzipSync(Buffer.from(row.gzip)) };
  },
};
