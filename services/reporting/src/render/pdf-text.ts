/** Text for the PDF: measured in the embedded fonts, wrapped to a width, and drawn in visual order (right-to-left runs reversed). */
import { bidi } from './bidi';
import { fontRuns, TextRun } from './fonts';
import { breakOpportunities } from './wrap';

export type Doc = PDFKit.PDFDocument;

export interface Style {
  size: number;
  bold: boolean;
}

interface MeasuredRun extends TextRun {
  width: number;
}

export type Line = MeasuredRun[];

export const lineWidth = (line: Line) => line.reduce((sum, run) => sum + run.width, 0);

export function measure(doc: Doc, text: string, style: Style): MeasuredRun[] {
  return fontRuns(text, style.bold).map((run) => ({
    ...run,
    width: doc.font(run.font).fontSize(style.size).widthOfString(run.text),
  }));
}

const textWidth = (doc: Doc, text: string, style: Style) =>
  measure(doc, text, style).reduce((sum, run) => sum + run.width, 0);

/**
 * Lays text out in lines no wider than `width`, breaking only where wrap.ts allows: a CVE id or a
 * word is moved whole to the next line, and split only when it is wider than a line by itself.
 */
export function layout(doc: Doc, text: string, width: number, style: Style): Line[] {
  const lines: Line[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    let line: Line = [];
    let used = 0;
    const push = (piece: string) => {
      for (const run of measure(doc, piece, style)) {
        const last = line[line.length - 1];
        // One run per font across pieces, so a right-to-left phrase is shaped and ordered as a whole.
        if (last && last.font === run.font)
          line[line.length - 1] = { font: run.font, text: last.text + run.text, width: last.width + run.width };
        else line.push(run);
        used += run.width;
      }
    };
    for (const piece of breakOpportunities(paragraph)) {
      const pieceWidth = textWidth(doc, piece, style);
      if (used + textWidth(doc, piece.trimEnd(), style) <= width) {
        push(piece);
        continue;
      }
      if (line.length > 0) lines.push(line);
      line = [];
      used = 0;
      if (pieceWidth <= width) {
        push(piece);
        continue;
      }
      // Wider than a whole line: split between characters, as a last resort.
      let chunk = '';
      for (const char of piece) {
        if (chunk && textWidth(doc, chunk + char, style) > width) {
          lines.push(measure(doc, chunk, style));
          chunk = '';
        }
        chunk += char;
      }
      push(chunk);
    }
    lines.push(line);
  }
  return lines;
}

/** Letters of the right-to-left scripts, whose words the font shapes and orders itself. */
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

interface VisualPiece {
  font: string;
  /** In logical order: a right-to-left piece is drawn word by word from its end. */
  text: string;
  rtl: boolean;
  start: number;
  end: number;
}

/**
 * A line's pieces left to right as the Unicode bidirectional algorithm orders them (bidi-js; the
 * line's first strong character sets its direction): each piece is one font and one direction.
 */
function visualPieces(line: Line): VisualPiece[] {
  const text = line.map((run) => run.text).join('');
  const fonts = line.flatMap((run) => Array.from({ length: run.text.length }, () => run.font));
  const levels = bidi.getEmbeddingLevels(text, 'auto');
  const pieces: VisualPiece[] = [];
  for (const index of bidi.getReorderedIndices(text, levels)) {
    const rtl = (levels.levels[index] & 1) === 1;
    const last = pieces[pieces.length - 1];
    if (
      last &&
      last.font === fonts[index] &&
      last.rtl === rtl &&
      (rtl ? index === last.start - 1 : index === last.end + 1)
    ) {
      if (rtl) last.start = index;
      else last.end = index;
    } else pieces.push({ font: fonts[index], text: '', rtl, start: index, end: index });
  }
  for (const piece of pieces) piece.text = text.slice(piece.start, piece.end + 1);
  return pieces;
}

/** A right-to-left piece's words and spaces from its end; punctuation without letters is mirrored here, words by the font's shaping. */
function rightToLeft(text: string): string[] {
  return text
    .split(/(\s+)/)
    .filter((token) => token !== '')
    .reverse()
    .map((token) =>
      RTL_LETTER.test(token)
        ? token
        : [...token]
            .reverse()
            .map((char) => bidi.getMirroredCharacter(char) ?? char)
            .join(''),
    );
}

export function drawLine(doc: Doc, line: Line, x: number, y: number, style: Style, color: string): void {
  let left = x;
  doc.fillColor(color);
  for (const piece of visualPieces(line)) {
    doc.font(piece.font).fontSize(style.size);
    for (const token of piece.rtl ? rightToLeft(piece.text) : [piece.text]) {
      if (token.trim() !== '') doc.text(token, left, y, { lineBreak: false });
      left += doc.widthOfString(token);
    }
  }
}
