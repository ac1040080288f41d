/**
 * A printable PDF of the report, A4 landscape. Text is drawn in fonts embedded from npm packages
 * (see fonts.ts), so every script prints; long values wrap inside their cells instead of being cut,
 * and charts are drawn as vectors from their SVG.
 */
import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import { ReportSnapshot } from '../domain/snapshot';
import { chartSvg } from './charts';
import { BOLD_FONT, pdfFonts, REGULAR_FONT } from './fonts';
import { Doc, drawLine, layout, Line, lineWidth, measure, Style } from './pdf-text';
import { buildReportView, SEVERITY_COLORS, severityOfLabel } from './report-view';
import type { ReportColumn, ReportEntry, ReportTable, ReportView } from './view-model';

export interface PdfOptions {
  /** Deflate the page contents; off only to let tests read the raw page text. */
  compress: boolean;
}

const MARGIN = 40;
const TABLE_FONT_SIZE = 8;
const CELL_PADDING = 4;
const SECTION_GAP = 16;
/** Points per unit of column weight; tables with few columns stay narrow instead of spanning the page. */
const WEIGHT_UNIT = 56;
const CHART_WIDTH = 245;
const CHART_HEIGHT = 190;
const CHART_GAP = 6;
const TEXT_COLOR = '#111827';
const MUTED_COLOR = '#4b5563';
const RULE_COLOR = '#d1d5db';
const HEADER_FILL = '#f3f4f6';

const contentLeft = (doc: Doc) => doc.page.margins.left;
const contentWidth = (doc: Doc) => doc.page.width - doc.page.margins.left - doc.page.margins.right;
const contentBottom = (doc: Doc) => doc.page.height - doc.page.margins.bottom;
const lineHeight = (style: Style) => style.size * 1.35;

function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > contentBottom(doc)) doc.addPage();
}

/** A paragraph that wraps and runs onto further pages as needed. */
function writeText(doc: Doc, text: string, x: number, width: number, style: Style, color = TEXT_COLOR): void {
  for (const line of layout(doc, text, width, style)) {
    ensureSpace(doc, lineHeight(style));
    drawLine(doc, line, x, doc.y, style, color);
    doc.y += lineHeight(style);
  }
}

function writeHeader(doc: Doc, view: ReportView): void {
  const left = contentLeft(doc);
  const width = contentWidth(doc);
  const labelWidth = 80;
  writeText(doc, view.title, left, width, { size: 18, bold: true });
  doc.y += 6;
  for (const detail of view.details) {
    const y = doc.y;
    writeText(doc, detail.label, left, labelWidth, { size: 10, bold: true }, MUTED_COLOR);
    doc.y = y;
    writeText(doc, detail.value, left + labelWidth, width - labelWidth, { size: 10, bold: false });
  }
  doc.y += 10;
  const style = { size: 13, bold: true };
  ensureSpace(doc, lineHeight(style));
  let x = left;
  for (const total of view.totals) {
    const runs = measure(doc, `${total.label}: ${total.value}`, style);
    drawLine(doc, runs, x, doc.y, style, TEXT_COLOR);
    x += lineWidth(runs) + 30;
  }
  doc.y += lineHeight(style);
}

function writeHeading(doc: Doc, title: string, keepWith: number): void {
  doc.y += SECTION_GAP;
  const style = { size: 12, bold: true };
  // A heading is kept with what follows it rather than left alone at a page's foot.
  ensureSpace(doc, lineHeight(style) + 2 + keepWith);
  writeText(doc, title, contentLeft(doc), contentWidth(doc), style);
  doc.y += 2;
}

function writeCharts(doc: Doc, view: ReportView): void {
  if (view.charts.length === 0) return;
  const perRow = Math.max(1, Math.floor(contentWidth(doc) / (CHART_WIDTH + CHART_GAP)));
  view.charts.forEach((chart, index) => {
    const column = index % perRow;
    if (column === 0) {
      doc.y += index === 0 ? SECTION_GAP : CHART_HEIGHT + CHART_GAP;
      ensureSpace(doc, CHART_HEIGHT);
    }
    SVGtoPDF(
      doc,
      chartSvg(chart, CHART_WIDTH, CHART_HEIGHT),
      contentLeft(doc) + column * (CHART_WIDTH + CHART_GAP),
      doc.y,
      {
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
        assumePt: true,
        fontCallback: (_family, bold) => (bold ? BOLD_FONT : REGULAR_FONT),
      },
    );
  });
  doc.y += CHART_HEIGHT;
}

interface LaidOutRow {
  cells: string[];
  lines: Line[][];
  height: number;
  header: boolean;
}

/** A row's cells laid out once, to learn its height before deciding on a page break and then to draw it. */
function layoutRow(doc: Doc, widths: number[], cells: string[], header: boolean): LaidOutRow {
  const style = { size: TABLE_FONT_SIZE, bold: header };
  const lines = cells.map((cell, index) => layout(doc, cell, widths[index] - 2 * CELL_PADDING, style));
  return {
    cells,
    lines,
    header,
    height: Math.max(1, ...lines.map((l) => l.length)) * lineHeight(style) + 2 * CELL_PADDING - 2,
  };
}

function writeRow(doc: Doc, columns: ReportColumn[], widths: number[], row: LaidOutRow): void {
  const left = contentLeft(doc);
  const tableWidth = widths.reduce((sum, width) => sum + width, 0);
  const y = doc.y;
  if (row.header) doc.rect(left, y, tableWidth, row.height).fill(HEADER_FILL);
  let x = left;
  row.lines.forEach((lines, index) => {
    const column = columns[index];
    const severity = !row.header && column.severity ? severityOfLabel(row.cells[index]) : undefined;
    const cellStyle = { size: TABLE_FONT_SIZE, bold: row.header || severity !== undefined };
    lines.forEach((line, n) => {
      const inner = widths[index] - 2 * CELL_PADDING;
      const offset = column.align === 'right' ? inner - lineWidth(line) : 0;
      drawLine(
        doc,
        line,
        x + CELL_PADDING + offset,
        y + CELL_PADDING - 1 + n * lineHeight(cellStyle),
        cellStyle,
        severity ? SEVERITY_COLORS[severity] : TEXT_COLOR,
      );
    });
    x += widths[index];
  });
  doc
    .moveTo(left, y + row.height)
    .lineTo(left + tableWidth, y + row.height)
    .lineWidth(0.5)
    .strokeColor(RULE_COLOR)
    .stroke();
  doc.y = y + row.height;
}

function writeTable(doc: Doc, table: ReportTable, heading = true): void {
  const totalWeight = table.columns.reduce((sum, column) => sum + column.weight, 0);
  const tableWidth = Math.min(contentWidth(doc), totalWeight * WEIGHT_UNIT);
  const widths = table.columns.map((column) => (tableWidth * column.weight) / totalWeight);
  const header = layoutRow(
    doc,
    widths,
    table.columns.map((column) => column.label),
    true,
  );
  const first = table.rows[0] === undefined ? null : layoutRow(doc, widths, table.rows[0], false);
  // The heading, the column headers and the first row go to a page together.
  const opening = header.height + (first?.height ?? 0);
  if (heading) writeHeading(doc, table.title, opening);
  if (table.rows.length === 0) {
    writeText(doc, table.emptyText, contentLeft(doc), contentWidth(doc), { size: 9, bold: false }, MUTED_COLOR);
    return;
  }
  ensureSpace(doc, opening);
  writeRow(doc, table.columns, widths, header);
  for (const cells of table.rows) {
    const row = layoutRow(doc, widths, cells, false);
    if (doc.y + row.height > contentBottom(doc)) {
      doc.addPage();
      writeRow(doc, table.columns, widths, header);
    }
    writeRow(doc, table.columns, widths, row);
  }
  if (table.note !== null) {
    doc.y += 4;
    writeText(doc, table.note, contentLeft(doc), contentWidth(doc), { size: 9, bold: false }, MUTED_COLOR);
  }
}

function writeEntry(doc: Doc, entry: ReportEntry): void {
  const left = contentLeft(doc);
  const width = contentWidth(doc);
  const labelWidth = 90;
  writeHeading(doc, entry.title, 40);
  for (const field of [...entry.fields, ...entry.paragraphs]) {
    ensureSpace(doc, lineHeight({ size: 9, bold: false }));
    const y = doc.y;
    writeText(doc, field.label, left, labelWidth, { size: 9, bold: true }, MUTED_COLOR);
    const afterLabel = doc.y;
    doc.y = y;
    writeText(doc, field.value, left + labelWidth, width - labelWidth, { size: 9, bold: false });
    doc.y = Math.max(doc.y, afterLabel) + 2;
  }
  if (entry.history) {
    doc.y += 4;
    writeTable(doc, entry.history, false);
  }
}

/** Page numbers go in last, once the page count is known; they sit in the bottom margin. */
function writeFooters(doc: Doc, title: string): void {
  const range = doc.bufferedPageRange();
  const style = { size: 8, bold: false };
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const left = contentLeft(doc);
    const width = contentWidth(doc);
    const y = doc.page.height - MARGIN + 14;
    const pageLabel = measure(doc, `Page ${index + 1} of ${range.count}`, style);
    const [firstLine] = layout(doc, title, width - lineWidth(pageLabel) - 20, style);
    drawLine(doc, firstLine ?? [], left, y, style, MUTED_COLOR);
    drawLine(doc, pageLabel, left + width - lineWidth(pageLabel), y, style, MUTED_COLOR);
  }
}

export function renderPdf(snapshot: ReportSnapshot, options: PdfOptions): Promise<Buffer> {
  const view = buildReportView(snapshot);
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: MARGIN,
    compress: options.compress,
    bufferPages: true,
    info: { Title: view.title, Author: snapshot.report.author },
  });
  for (const font of pdfFonts()) doc.registerFont(font.name, font.data);
  doc.font(REGULAR_FONT);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    writeHeader(doc, view);
    writeCharts(doc, view);
    for (const table of view.tables) writeTable(doc, table);
    for (const entry of view.entries) writeEntry(doc, entry);
    writeFooters(doc, view.title);
    doc.end();
  });
}
