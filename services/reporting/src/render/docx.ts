/** An editable Word document of the report, A4 landscape like the PDF so the top issues fit. */
import {
  AlignmentType,
  Document,
  Footer,
  HeadingLevel,
  ImageRun,
  NoBreakHyphen,
  Packer,
  PageNumber,
  PageOrientation,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import type { IParagraphOptions, IRunOptions } from 'docx';
import { directionRuns, rightToLeftParagraph } from './bidi';
import { chartPng, chartSvg } from './charts';
import { IDENTIFIER } from './wrap';
import { ReportSnapshot } from '../domain/snapshot';
import { buildReportView, SEVERITY_COLORS, severityOfLabel } from './report-view';
import type { ReportChart, ReportColumn, ReportEntry, ReportField, ReportTable } from './view-model';

/** Page measures are in twips (1/1440 inch). */
const A4_SHORT_SIDE = 11906;
const A4_LONG_SIDE = 16838;
const PAGE_MARGIN = 1440;
const CONTENT_WIDTH = A4_LONG_SIDE - 2 * PAGE_MARGIN;
/** Twips per unit of column weight, as in the PDF: tables with few columns stay narrow. */
const WEIGHT_UNIT = 56 * 20;
/** Font sizes are in half-points. */
const TABLE_FONT_SIZE = 18;
const MUTED_COLOR = '4B5563';
const HEADER_FILL = 'F3F4F6';
const CHART_WIDTH = 440;
const CHART_HEIGHT = 260;
/**
 * Fonts by script: Word takes ascii/hAnsi for Latin, Cyrillic and Greek, eastAsia for CJK and cs
 * for Arabic and Hebrew, and falls back further itself when a font is missing.
 */
const FONTS = { ascii: 'Calibri', hAnsi: 'Calibri', eastAsia: 'Microsoft YaHei', cs: 'Arial' };

type RunOptions = Omit<IRunOptions, 'text' | 'children' | 'rightToLeft'>;

/**
 * Runs of the text, cut where its direction changes so that Word orders them: right-to-left pieces
 * are marked so (w:rtl), and the hyphens of CVE and CWE ids are made non-breaking.
 */
const directedRuns = (text: string, options: RunOptions = {}): TextRun[] =>
  directionRuns(text).map((run) => new TextRun({ ...options, children: unbrokenIds(run.text), rightToLeft: run.rtl }));

/** A paragraph of text that reads right to left when its first strong character does (w:bidi). */
const textParagraph = (
  text: string,
  options: RunOptions = {},
  paragraph: Omit<IParagraphOptions, 'children' | 'bidirectional'> = {},
) => new Paragraph({ ...paragraph, bidirectional: rightToLeftParagraph(text), children: directedRuns(text, options) });

/** The run's text, with the hyphens of CVE and CWE ids made non-breaking so Word keeps each id on one line. */
function unbrokenIds(text: string): (string | NoBreakHyphen)[] {
  const parts: (string | NoBreakHyphen)[] = [];
  let last = 0;
  for (const match of text.matchAll(IDENTIFIER)) {
    parts.push(text.slice(last, match.index));
    match[0].split('-').forEach((piece, index) => {
      if (index > 0) parts.push(new NoBreakHyphen());
      parts.push(piece);
    });
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts.filter((part) => part !== '');
}

function chartParagraph(chart: ReportChart): Paragraph {
  const svg = chartSvg(chart, CHART_WIDTH, CHART_HEIGHT);
  return new Paragraph({
    children: [
      new ImageRun({
        type: 'svg',
        data: Buffer.from(svg, 'utf8'),
        transformation: { width: CHART_WIDTH, height: CHART_HEIGHT },
        // Word before 2016 shows no SVG; it shows this PNG instead.
        fallback: { type: 'png', data: chartPng(svg, 2) },
        altText: { name: chart.title, title: chart.title, description: chart.title },
      }),
    ],
  });
}

function entryBlock(entry: ReportEntry): (Paragraph | Table)[] {
  return [
    textParagraph(entry.title, {}, { heading: HeadingLevel.HEADING_3 }),
    ...entry.fields.map((field) => fieldParagraph(field, TABLE_FONT_SIZE)),
    ...entry.paragraphs.flatMap((p) => [
      new Paragraph({ children: [new TextRun({ text: p.label, bold: true, color: MUTED_COLOR })] }),
      ...p.value.split(/\r?\n/).map((line) => textParagraph(line)),
    ]),
    ...(entry.history ? tableBlock(entry.history) : []),
  ];
}

const fieldParagraph = (field: ReportField, size?: number): Paragraph =>
  new Paragraph({
    children: [
      new TextRun({ text: `${field.label}: `, bold: true, color: MUTED_COLOR, size }),
      ...directedRuns(field.value, { size }),
    ],
  });

function tableCell(text: string, column: ReportColumn, header: boolean): TableCell {
  const severity = !header && column.severity ? severityOfLabel(text) : undefined;
  return new TableCell({
    shading: header ? { type: ShadingType.CLEAR, fill: HEADER_FILL, color: 'auto' } : undefined,
    children: [
      textParagraph(
        text,
        {
          size: TABLE_FONT_SIZE,
          bold: header || severity !== undefined,
          color: severity ? SEVERITY_COLORS[severity].slice(1).toUpperCase() : undefined,
        },
        { alignment: column.align === 'right' ? AlignmentType.RIGHT : AlignmentType.LEFT },
      ),
    ],
  });
}

function tableBlock(table: ReportTable): (Paragraph | Table)[] {
  const heading = new Paragraph({ text: table.title, heading: HeadingLevel.HEADING_2 });
  if (table.rows.length === 0)
    return [heading, new Paragraph({ children: [new TextRun({ text: table.emptyText, color: MUTED_COLOR })] })];
  const totalWeight = table.columns.reduce((sum, column) => sum + column.weight, 0);
  const tableWidth = Math.min(CONTENT_WIDTH, totalWeight * WEIGHT_UNIT);
  const columnWidths = table.columns.map((column) => Math.floor((tableWidth * column.weight) / totalWeight));
  const body = new Table({
    width: { size: columnWidths.reduce((sum, columnWidth) => sum + columnWidth, 0), type: WidthType.DXA },
    columnWidths,
    rows: [
      // Repeated at the top of every page the table runs onto.
      new TableRow({
        tableHeader: true,
        children: table.columns.map((column) => tableCell(column.label, column, true)),
      }),
      ...table.rows.map(
        (row) =>
          new TableRow({
            cantSplit: true,
            children: row.map((text, index) => tableCell(text, table.columns[index], false)),
          }),
      ),
    ],
  });
  const note =
    table.note === null ? [] : [new Paragraph({ children: [new TextRun({ text: table.note, color: MUTED_COLOR })] })];
  return [heading, body, ...note];
}

export function renderDocx(snapshot: ReportSnapshot): Promise<Buffer> {
  const view = buildReportView(snapshot);
  const document = new Document({
    title: view.title,
    creator: snapshot.report.author,
    styles: { default: { document: { run: { font: FONTS } } } },
    sections: [
      {
        properties: {
          page: {
            // docx takes the portrait measures and swaps them for landscape.
            size: { width: A4_SHORT_SIDE, height: A4_LONG_SIDE, orientation: PageOrientation.LANDSCAPE },
            margin: { top: PAGE_MARGIN, right: PAGE_MARGIN, bottom: PAGE_MARGIN, left: PAGE_MARGIN },
          },
        },
        footers: {
          default: new Footer({
            children: [
              new Paragraph({
                alignment: AlignmentType.RIGHT,
                children: [
                  new TextRun({
                    children: ['Page ', PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES],
                    size: 16,
                    color: MUTED_COLOR,
                  }),
                ],
              }),
            ],
          }),
        },
        children: [
          textParagraph(view.title, {}, { heading: HeadingLevel.TITLE }),
          ...view.details.map((detail) => fieldParagraph(detail)),
          new Paragraph({ children: [] }),
          ...view.totals.map((total) => fieldParagraph(total, 28)),
          ...view.charts.map(chartParagraph),
          ...view.tables.flatMap(tableBlock),
          ...(view.entries.length > 0
            ? [
                new Paragraph({ text: 'Open issues in detail', heading: HeadingLevel.HEADING_2 }),
                ...view.entries.flatMap(entryBlock),
              ]
            : []),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}
