/**
 * A printable PDF of the report, A4 landscape so the top issues fit in one row each. Only the
 * standard PDF fonts are used: they need no font files, so nothing is read outside node_modules.
 */
import PDFDocument from 'pdfkit';
import { ReportSnapshot } from '../domain/snapshot';
import { buildReportView, ReportColumn, ReportTable, ReportView, SEVERITY_COLORS, severityOfLabel } from './report-view';

export interface PdfOptions {
  /** Deflate the page contents; off only to let tests read the text. */
  compress: boolean;
}

const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const MARGIN = 40;
const TABLE_FONT_SIZE = 8;
const ROW_HEIGHT = 15;
const CELL_PADDING = 4;
const SECTION_GAP = 16;
/** Points per unit of column weight; tables with few columns stay narrow instead of spanning the page. */
const WEIGHT_UNIT = 56;
const TEXT_COLOR = '#111827';
const MUTED_COLOR = '#4b5563';
const RULE_COLOR = '#d1d5db';
const HEADER_FILL = '#f3f4f6';
const ELLIPSIS = '…';

/**
 * The standard fonts only encode WinAnsi (Latin-1 plus the listed typographic characters, which
 * PDFKit maps); anything else would come out as garbage, so it becomes '?'. Line breaks become
 * spaces because every text written here is a single line.
 */
const OUTSIDE_WIN_ANSI = /[^\x20-\x7E\xA0-\xFFŒœŠšŸŽžƒˆ˜–—‘’‚“”„†‡•…‰‹›€™]/gu;

function toWinAnsi(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ').replace(OUTSIDE_WIN_ANSI, '?');
}

/** Cuts text to the width in the current font, marking the cut with an ellipsis. */
function fitToWidth(doc: PDFKit.PDFDocument, text: string, width: number, cut: ReportColumn['cut']): string {
  if (doc.widthOfString(text) <= width) return text;
  const shortened = (kept: number) => (cut === 'end' ? text.slice(0, kept).trimEnd() + ELLIPSIS : ELLIPSIS + text.slice(text.length - kept).trimStart());
  let fits = 0;
  let tooLong = text.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (doc.widthOfString(shortened(middle)) <= width) fits = middle;
    else tooLong = middle;
  }
  return shortened(fits);
}

const contentLeft = (doc: PDFKit.PDFDocument) => doc.page.margins.left;
const contentWidth = (doc: PDFKit.PDFDocument) => doc.page.width - doc.page.margins.left - doc.page.margins.right;
const contentBottom = (doc: PDFKit.PDFDocument) => doc.page.height - doc.page.margins.bottom;

function ensureSpace(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > contentBottom(doc)) doc.addPage();
}

/** One line that never wraps, so it can neither overflow its cell nor start a page by itself. */
function writeLine(
  doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number,
  { align, cut }: Pick<ReportColumn, 'align' | 'cut'> = { align: 'left', cut: 'end' },
): void {
  const fitted = fitToWidth(doc, toWinAnsi(text), width, cut);
  const left = align === 'right' ? x + width - doc.widthOfString(fitted) : x;
  doc.text(fitted, left, y, { lineBreak: false });
}

function writeHeader(doc: PDFKit.PDFDocument, view: ReportView): void {
  const left = contentLeft(doc);
  const width = contentWidth(doc);
  const labelWidth = 80;
  doc.font(BOLD).fontSize(18).fillColor(TEXT_COLOR).text(toWinAnsi(view.title), left, doc.y, { width });
  doc.moveDown(0.5);
  for (const detail of view.details) {
    doc.fontSize(10);
    ensureSpace(doc, doc.currentLineHeight(true));
    const y = doc.y;
    doc.font(BOLD).fillColor(MUTED_COLOR);
    writeLine(doc, detail.label, left, y, labelWidth);
    // Values such as a long project list wrap onto further lines instead of being cut.
    doc.font(REGULAR).fillColor(TEXT_COLOR).text(toWinAnsi(detail.value), left + labelWidth, y, { width: width - labelWidth });
  }
  doc.moveDown(1);
  doc.font(BOLD).fontSize(13).fillColor(TEXT_COLOR);
  ensureSpace(doc, doc.currentLineHeight(true));
  const y = doc.y;
  let x = left;
  for (const total of view.totals) {
    const text = toWinAnsi(`${total.label}: ${total.value}`);
    doc.text(text, x, y, { lineBreak: false });
    x += doc.widthOfString(text) + 30;
  }
  doc.y = y + doc.currentLineHeight(true);
}

function writeRow(doc: PDFKit.PDFDocument, columns: ReportColumn[], widths: number[], cells: string[], header: boolean): void {
  const left = contentLeft(doc);
  const y = doc.y;
  const tableWidth = widths.reduce((sum, width) => sum + width, 0);
  if (header) doc.rect(left, y, tableWidth, ROW_HEIGHT).fill(HEADER_FILL);
  doc.font(header ? BOLD : REGULAR).fontSize(TABLE_FONT_SIZE);
  let x = left;
  cells.forEach((cell, index) => {
    const column = columns[index]!;
    const severity = !header && column.severity ? severityOfLabel(cell) : undefined;
    doc.fillColor(severity ? SEVERITY_COLORS[severity] : TEXT_COLOR);
    writeLine(doc, cell, x + CELL_PADDING, y + (ROW_HEIGHT - TABLE_FONT_SIZE) / 2, widths[index]! - 2 * CELL_PADDING, column);
    x += widths[index]!;
  });
  doc.moveTo(left, y + ROW_HEIGHT).lineTo(left + tableWidth, y + ROW_HEIGHT).lineWidth(0.5).strokeColor(RULE_COLOR).stroke();
  doc.y = y + ROW_HEIGHT;
}

function writeTable(doc: PDFKit.PDFDocument, table: ReportTable): void {
  const left = contentLeft(doc);
  const totalWeight = table.columns.reduce((sum, column) => sum + column.weight, 0);
  const tableWidth = Math.min(contentWidth(doc), totalWeight * WEIGHT_UNIT);
  const widths = table.columns.map((column) => (tableWidth * column.weight) / totalWeight);
  const headerCells = table.columns.map((column) => column.label);

  doc.y += SECTION_GAP;
  doc.font(BOLD).fontSize(12);
  const headingHeight = doc.currentLineHeight(true) + 4;
  // A heading is kept with its column headers and first row rather than left alone at a page's foot.
  ensureSpace(doc, headingHeight + 2 * ROW_HEIGHT);
  doc.fillColor(TEXT_COLOR);
  writeLine(doc, table.title, left, doc.y, contentWidth(doc));
  doc.y += headingHeight;

  if (table.rows.length === 0) {
    writeNote(doc, table.emptyText);
    return;
  }
  writeRow(doc, table.columns, widths, headerCells, true);
  for (const row of table.rows) {
    if (doc.y + ROW_HEIGHT > contentBottom(doc)) {
      doc.addPage();
      writeRow(doc, table.columns, widths, headerCells, true);
    }
    writeRow(doc, table.columns, widths, row, false);
  }
  if (table.note !== null) {
    doc.y += 4;
    writeNote(doc, table.note);
  }
}

function writeNote(doc: PDFKit.PDFDocument, text: string): void {
  doc.font(REGULAR).fontSize(9).fillColor(MUTED_COLOR);
  ensureSpace(doc, doc.currentLineHeight(true));
  writeLine(doc, text, contentLeft(doc), doc.y, contentWidth(doc));
  doc.y += doc.currentLineHeight(true);
}

/** Page numbers go in last, once the page count is known; they sit in the bottom margin. */
function writeFooters(doc: PDFKit.PDFDocument, title: string): void {
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const left = contentLeft(doc);
    const width = contentWidth(doc);
    const y = doc.page.height - MARGIN + 14;
    doc.font(REGULAR).fontSize(8).fillColor(MUTED_COLOR);
    const pageLabel = `Page ${index + 1} of ${range.count}`;
    const pageLabelWidth = doc.widthOfString(pageLabel);
    writeLine(doc, title, left, y, width - pageLabelWidth - 20);
    writeLine(doc, pageLabel, left, y, width, { align: 'right', cut: 'end' });
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
    font: REGULAR,
    info: { Title: view.title, Author: snapshot.report.author },
  });
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    writeHeader(doc, view);
    for (const table of view.tables) writeTable(doc, table);
    writeFooters(doc, view.title);
    doc.end();
  });
}
