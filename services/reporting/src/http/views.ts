import { HttpResponse } from '@bulwark/platform';
import { REPORT_FORMATS, REPORT_PERIODS, REPORT_TYPES } from '@bulwark/contracts';
import type { RenderedReport } from '../render';
import type { ReportRecord } from '../store/reports';

type ReportType = (typeof REPORT_TYPES)[number];
type ReportPeriod = (typeof REPORT_PERIODS)[number];

export const reportView = (r: ReportRecord) => ({
  id: r.id,
  name: r.name,
  type: r.type as ReportType,
  filter: {
    period: r.period as ReportPeriod,
    project_code: r.allProjects ? [] : r.projectCodes,
    from: r.rangeFrom,
    to: r.rangeTo,
  },
  state: r.state,
  progress: r.progress,
  error: r.error,
  author: r.author,
  created_at: r.createdAt,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
  formats: r.state === 'ready' ? [...REPORT_FORMATS] : [],
});

/**
 * Content-Disposition keeps the report's own name (RFC 6266: filename* in UTF-8), with an ASCII
 * filename beside it for clients that read only that. Control and path characters never reach it.
 */
export function contentDisposition(name: string, extension: string): string {
  const clean =
    name
      .replace(/[\p{Cc}\p{Cf}\\/:*?"<>|]+/gu, '_')
      .trim()
      .slice(0, 150) || 'report';
  const ascii =
    clean
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._ -]+/g, '_')
      .replace(/_+/g, '_')
      .trim() || 'report';
  const encoded = encodeURIComponent(`${clean}.${extension}`).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}.${extension}"; filename*=UTF-8''${encoded}`;
}

/** A report file as a download, under the report's name. */
export const fileResponse = ({ name, file }: { name: string; file: RenderedReport }): HttpResponse =>
  new HttpResponse(200, file.body, {
    'content-type': file.contentType,
    'content-disposition': contentDisposition(name, file.extension),
  });
