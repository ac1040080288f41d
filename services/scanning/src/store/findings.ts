import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { present, type Queryable, queryPage } from '@bulwark/platform';
import type { Finding } from '@bulwark/findings';
import type { FindingsBatch } from '../domain/findings-batch';
import { findingRefStore } from './finding-refs';

/** A completed scan of the check whose report had the same import key: its findings can be reused. */
export interface SameImport {
  scanId: string;
  format: string;
  findingsCount: number;
  severityCounts: Record<string, number>;
  digest: string;
}

/** Bytes of gzip per stored row of a report (`scan_report_chunks`). */
const REPORT_CHUNK_BYTES = 1 << 20;

export const findingStore = {
  /** Stores one batch of findings: one statement that PostgreSQL parses from one JSON array. */
  async insertBatch(db: Queryable, scanId: string, batch: FindingsBatch): Promise<void> {
    await db.raw(
      `insert into scan_findings (scan_id, seq, fingerprint, severity, finding)
       select ?, (?::int[])[t.n], t.f->>'fingerprint', t.f->>'severity', t.f from jsonb_array_elements(?::jsonb) with ordinality as t(f, n)
       ${batch.replaces ? 'on conflict (scan_id, seq) do update set fingerprint = excluded.fingerprint, severity = excluded.severity, finding = excluded.finding' : ''}`,
      [scanId, `{${batch.seqs.join(',')}}`, batch.json],
    );
  },

  /**
   * Stores the report file for download as it streams: gzip (the fastest level: the copy is kept for
   * download, and level 6 cost seconds per upload for a few percent) in rows of about 1 MiB, never the
   * whole file or its gzip in memory. `signal` stops it early (the import failed).
   */
  async insertReportFile(db: Queryable, scanId: string, file: string, signal?: AbortSignal): Promise<void> {
    const gzip = zlib.createGzip({ level: zlib.constants.Z_BEST_SPEED });
    const compressing = pipeline(fs.createReadStream(file), gzip, { signal }).catch(() => undefined);
    let seq = 0;
    let pending: Buffer[] = [];
    let size = 0;
    const store = async () => {
      await db('scan_report_chunks').insert({ scan_id: scanId, seq: seq++, bytes: Buffer.concat(pending) });
      pending = [];
      size = 0;
    };
    try {
      for await (const piece of gzip as AsyncIterable<Buffer>) {
        pending.push(piece);
        size += piece.length;
        if (size >= REPORT_CHUNK_BYTES) await store();
      }
      signal?.throwIfAborted();
      if (size > 0 || seq === 0) await store();
    } finally {
      gzip.destroy();
      await compressing;
    }
  },

  /** The report's row: what it is called, its type and size, and the import key of an upload. */
  async insertReport(
    db: Queryable,
    scanId: string,
    file: { fileName: string; contentType: string; size: number; importKey?: string },
  ): Promise<void> {
    await db('scan_reports').insert({
      scan_id: scanId,
      file_name: file.fileName,
      content_type: file.contentType,
      size: file.size,
      gzip: null,
      import_key: file.importKey ?? null,
    });
  },

  /** The latest completed scan of the check whose report had this import key and whose findings digest is known. */
  async sameImport(db: Queryable, checkId: string, importKey: string): Promise<SameImport | undefined> {
    const row = await db('scans as s')
      .join('scan_reports as r', 'r.scan_id', 's.id')
      .where({ 's.check_id': checkId, 's.state': 'completed', 'r.import_key': importKey })
      .whereNotNull('s.findings_digest')
      .orderBy('s.created_at', 'desc')
      .first<
        | {
            id: string;
            report_format: string;
            findings_count: number;
            severity_counts: string | Record<string, number>;
            findings_digest: string;
          }
        | undefined
      >('s.id', 's.report_format', 's.findings_count', 's.severity_counts', 's.findings_digest');
    if (!row) return undefined;
    const counts =
      typeof row.severity_counts === 'string'
        ? (JSON.parse(row.severity_counts) as Record<string, number>)
        : row.severity_counts;
    return {
      scanId: row.id,
      format: row.report_format,
      findingsCount: row.findings_count,
      severityCounts: counts,
      digest: row.findings_digest,
    };
  },

  /**
   * Makes a scan's findings and report those of another scan with the same import: the new scan
   * stores only its report row (its own file name) and reads the rest from the scan that holds them,
   * so an unchanged upload writes no row per finding. False when the source scan is gone (deleted
   * meanwhile): nothing was written then.
   */
  async reuseImport(db: Queryable, scanId: string, from: SameImport, fileName: string): Promise<boolean> {
    const source: { findings_of: string | null } | undefined = await db('scans')
      .where({ id: from.scanId })
      .forShare()
      .first('findings_of');
    if (!source) return false;
    await db.raw(
      `insert into scan_reports (scan_id, file_name, content_type, size, gzip, import_key)
       select ?, ?, content_type, size, gzip, import_key from scan_reports where scan_id = ?`,
      [scanId, fileName, from.scanId],
    );
    await db('scans')
      .where({ id: scanId })
      .update({ findings_of: source.findings_of ?? from.scanId });
    return true;
  },

  /** The scan whose `scan_findings` and `scan_report_chunks` rows are this scan's (itself unless it reuses another's). */
  async holder(db: Queryable, scanId: string): Promise<string> {
    const row: { findings_of: string | null } | undefined = await db('scans')
      .where({ id: scanId })
      .first('findings_of');
    return row?.findings_of ?? scanId;
  },

  /** The highest sequence number of the findings held by scan `holderId`, 0 when it holds none. */
  async lastSeq(db: Queryable, holderId: string): Promise<number> {
    const [row] = await db('scan_findings').where('scan_id', holderId).max<{ last: number | null }[]>('seq as last');
    return row?.last ?? 0;
  },

  /**
   * The findings held by scan `holderId` numbered after `afterSeq` up to `afterSeq + span`, as JSON
   * text, for the hand-over to the issues service. A bounded range of the key rather than `seq >
   * afterSeq limit span`: right after an upload the table's statistics do not know the scan yet, and
   * PostgreSQL then read and sorted every remaining finding of the scan for each chunk (100–500 ms a
   * chunk, ten seconds for 100,000 findings, where the range reads only the chunk's rows: 3 ms).
   */
  async chunk(
    db: Queryable,
    holderId: string,
    afterSeq: number,
    span: number,
  ): Promise<{ seq: number; findingJson: string }[]> {
    return db('scan_findings')
      .select('seq', db.raw('finding::text as "findingJson"'))
      .where('scan_id', holderId)
      .andWhere('seq', '>', afterSeq)
      .andWhere('seq', '<=', afterSeq + span)
      .orderBy('seq');
  },

  async page(
    db: Queryable,
    scanId: string,
    q: { page: number; limit: number; severity?: string; notIn?: string },
  ): Promise<{ items: Finding[]; total: number }> {
    const base = db.from(findingRefStore.findingsOf(db, await findingStore.holder(db, scanId), 'f'));
    if (q.severity) base.where('severity', q.severity);
    if (q.notIn) findingRefStore.absentFrom(db, base, 'f', await findingStore.holder(db, q.notIn));
    const { rows, total } = await queryPage<{ finding: unknown }>(base, q, [{ column: 'seq' }]);
    return {
      items: rows.map((r) => (typeof r.finding === 'string' ? JSON.parse(r.finding) : r.finding) as Finding),
      total,
    };
  },

  /**
   * The stored report: its name and type, and its bytes as a stream, gunzipped as they are read one
   * row at a time. Reports stored before the rows existed are one `gzip` value.
   */
  async report(
    db: Queryable,
    scanId: string,
  ): Promise<{ fileName: string; contentType: string; bytes: Readable } | undefined> {
    const row = await db('scan_reports')
      .where({ scan_id: scanId })
      .first<{ file_name: string; content_type: string; legacy: boolean } | undefined>(
        'file_name',
        'content_type',
        db.raw('gzip is not null as legacy'),
      );
    if (!row) return undefined;
    const { legacy } = row;
    const holder = await findingStore.holder(db, scanId);
    async function* gzipped(): AsyncGenerator<Buffer> {
      if (legacy) {
        const stored = await db('scan_reports').where({ scan_id: scanId }).first<{ gzip: Buffer } | undefined>('gzip');
        yield Buffer.from(present(stored, `the report of scan ${scanId}`).gzip);
        return;
      }
      for (let seq = 0; ; seq++) {
        const chunk = await db('scan_report_chunks')
          .where({ scan_id: holder, seq })
          .first<{ bytes: Buffer } | undefined>('bytes');
        if (!chunk) return;
        yield Buffer.from(chunk.bytes);
      }
    }
    const bytes = zlib.createGunzip();
    void pipeline(Readable.from(gzipped()), bytes).catch((err) => bytes.destroy(err as Error));
    return { fileName: row.file_name, contentType: row.content_type, bytes };
  },
};
