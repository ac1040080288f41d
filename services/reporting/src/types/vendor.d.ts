/** The parts of untyped packages this service uses. */
declare module 'fontkit' {
  export interface Font {
    /** Every code point the font maps to a glyph. */
    characterSet: number[];
  }
  export function create(buffer: Buffer): Font;
}

declare module 'svg-to-pdfkit' {
  interface SvgToPdfOptions {
    width?: number;
    height?: number;
    preserveAspectRatio?: string;
    assumePt?: boolean;
    fontCallback?: (family: string, bold: boolean, italic: boolean) => string;
  }
  function SVGtoPDF(doc: PDFKit.PDFDocument, svg: string, x: number, y: number, options?: SvgToPdfOptions): void;
  export = SVGtoPDF;
}
