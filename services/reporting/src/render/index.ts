/** Renders a report snapshot into each of its download formats. */
import { REPORT_FORMATS } from '@bulwark/contracts';
import { ReportSnapshot } from '../domain/snapshot';
import { renderCsv } from './csv';
import { renderDocx } from './docx';
import { renderHtml } from './html';
import { renderJson } from './json';
import { renderPdf } from './pdf';

export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportFileType {
  contentType: string;
  extension: string;
}

export interface RenderedReport extends ReportFileType {
  body: Buffer;
}

interface FormatRenderer extends ReportFileType {
  render: (snapshot: ReportSnapshot) => Buffer | Promise<Buffer>;
}

const RENDERERS: Record<ReportFormat, FormatRenderer> = {
  html: { contentType: 'text/html; charset=utf-8', extension: 'html', render: renderHtml },
  csv: { contentType: 'text/csv; charset=utf-8', extension: 'csv', render: renderCsv },
  json: { contentType: 'application/json; charset=utf-8', extension: 'json', render: renderJson },
  pdf: {
    contentType: 'application/pdf',
    extension: 'pdf',
    render: (snapshot) => renderPdf(snapshot, { compress: true }),
  },
  docx: {
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extension: 'docx',
    render: renderDocx,
  },
};

function rendererOf(format: ReportFormat): FormatRenderer {
  // The format usually comes from a request; a name that is not a format must not reach the prototype.
  if (!Object.hasOwn(RENDERERS, format)) throw new Error(`unknown report format: ${String(format)}`);
  return RENDERERS[format];
}

/** The content type and file extension of a format, for serving a file rendered earlier. */
export function reportFileType(format: ReportFormat): ReportFileType {
  const { contentType, extension } = rendererOf(format);
  return { contentType, extension };
}

export async function renderReport(snapshot: ReportSnapshot, format: ReportFormat): Promise<RenderedReport> {
  const { contentType, extension, render } = rendererOf(format);
  return { body: await render(snapshot), contentType, extension };
}
