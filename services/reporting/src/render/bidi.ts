/** The Unicode bidirectional algorithm (bidi-js) for the renderers that order text themselves. */
import bidiFactory from 'bidi-js';

export const bidi = bidiFactory();

/** Whether a paragraph reads right to left: its first strong character is of a right-to-left script. */
export const rightToLeftParagraph = (text: string): boolean =>
  bidi.getEmbeddingLevels(text, 'auto').paragraphs[0]?.level === 1;

/** Text cut, in logical order, where its resolved direction changes: each piece with whether it is right to left. */
export function directionRuns(text: string): { text: string; rtl: boolean }[] {
  const { levels } = bidi.getEmbeddingLevels(text, 'auto');
  const runs: { text: string; rtl: boolean }[] = [];
  for (let index = 0; index < text.length; index++) {
    const rtl = (levels[index] & 1) === 1;
    const last = runs[runs.length - 1];
    if (last && last.rtl === rtl) last.text += text[index];
    else runs.push({ text: text[index], rtl });
  }
  return runs;
}
