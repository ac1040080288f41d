/**
 * The fonts a PDF embeds, all shipped inside npm packages (nothing is read outside node_modules,
 * nothing is downloaded): DejaVu Sans covers Latin, Cyrillic, Greek, Arabic and Hebrew as full
 * TrueType files; Noto Sans SC, which Fontsource splits into many small WOFF files by Unicode
 * range, covers CJK (WOFF, not WOFF2: PDFKit embeds the CFF outlines of the WOFF2 files empty). Each run of text is drawn in the first font that has its characters.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as fontkit from 'fontkit';
import { woffToSfnt } from './woff';

export interface FontFile {
  /** The name a PDF document registers the file under. */
  name: string;
  data: Buffer;
}

export interface TextRun {
  font: string;
  text: string;
}

interface LoadedFont extends FontFile {
  has(codePoint: number): boolean;
}

const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

function load(name: string, path: string): LoadedFont {
  const data = readFileSync(path);
  const font = fontkit.create(data);
  // A Fontsource subset's character set is small and exact; asking it beats probing every glyph.
  const chars = new Set(font.characterSet);
  return { name, data, has: (codePoint) => chars.has(codePoint) };
}

/** A subset whose character map fontkit cannot read (one of Noto Sans SC's) is left out, not fatal. */
function loadSubset(name: string, path: string): LoadedFont[] {
  try {
    return [load(name, path)];
  } catch {
    return [];
  }
}

interface FontSet {
  regular: LoadedFont;
  bold: LoadedFont;
  cjk: LoadedFont[];
}

let loaded: FontSet | undefined;

/** Read once per process, at the first PDF: about 1.5 MB of DejaVu and 6 MB of CJK subsets. */
function fontSet(): FontSet {
  if (loaded) return loaded;
  const dejavu = join(packageDir('dejavu-fonts-ttf'), 'ttf');
  const noto = join(packageDir('@fontsource/noto-sans-sc'), 'files');
  const cjk = readdirSync(noto)
    .filter((file) => /^noto-sans-sc-\d+-400-normal\.woff$/.test(file))
    .sort((a, b) => Number(a.split('-')[3]) - Number(b.split('-')[3]))
    .flatMap((file) => loadSubset(`cjk-${file.split('-')[3]}`, join(noto, file)));
  loaded = {
    regular: load('dejavu', join(dejavu, 'DejaVuSans.ttf')),
    bold: load('dejavu-bold', join(dejavu, 'DejaVuSans-Bold.ttf')),
    cjk,
  };
  return loaded;
}

/** Every font file, to register with a PDF document (only the ones drawn with end up embedded, subset). */
export function pdfFonts(): FontFile[] {
  const set = fontSet();
  return [set.regular, set.bold, ...set.cjk].map(({ name, data }) => ({ name, data }));
}

let rasterFonts: string[] | undefined;

/**
 * Paths of sfnt files for rasterizing charts: DejaVu Sans, and the CJK subsets unwrapped from WOFF
 * (resvg reads no WOFF) into a folder of this process's own, made at the first chart and removed
 * when the process exits. resvg falls back glyph by glyph to whichever file has the character.
 */
export function trueTypeFontPaths(): string[] {
  if (rasterFonts) return rasterFonts;
  const dejavu = join(packageDir('dejavu-fonts-ttf'), 'ttf');
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-fonts-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const cjk = fontSet().cjk.map(({ name, data }) => {
    const path = join(dir, `${name}.otf`);
    writeFileSync(path, woffToSfnt(data), { mode: 0o600 });
    return path;
  });
  rasterFonts = [join(dejavu, 'DejaVuSans.ttf'), join(dejavu, 'DejaVuSans-Bold.ttf'), ...cjk];
  return rasterFonts;
}

export const REGULAR_FONT = 'dejavu';
export const BOLD_FONT = 'dejavu-bold';

/** Marks, joiners and spaces stay in the run they follow, so a combining accent is not split from its letter. */
const CLINGING = /[\p{M}\p{Zs}\u200c\u200d\ufe00-\ufe0f]/u;

/**
 * Splits text into runs of one font each. CJK ideographs have no bold here: they keep the regular
 * weight, which reads better than the blank a missing glyph would leave.
 */
export function fontRuns(text: string, bold: boolean): TextRun[] {
  const set = fontSet();
  const base = bold ? set.bold : set.regular;
  const runs: TextRun[] = [];
  for (const char of text) {
    // A string iterates by code point, so no character is empty.
    const codePoint = char.codePointAt(0) ?? 0;
    const last = runs[runs.length - 1];
    let font = base.name;
    if (last && CLINGING.test(char)) font = last.font;
    else if (!base.has(codePoint)) font = set.cjk.find((f) => f.has(codePoint))?.name ?? base.name;
    if (last && last.font === font) last.text += char;
    else runs.push({ font, text: char });
  }
  return runs;
}
