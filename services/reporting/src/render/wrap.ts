/**
 * Where long values may wrap. Text is cut into pieces after spaces and after the separators of
 * paths and URLs ('/', '\\', '?', '&', ',', ';'), and around each CJK character, which may break
 * anywhere. A hyphen is not a break: identifiers such as CVE-2021-44228 or GHSA ids stay whole.
 */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const SEPARATORS = '\\s/\\\\?&,;';
const PIECE = new RegExp(`[${CJK}][${SEPARATORS}]*|[^${SEPARATORS}${CJK}]+[${SEPARATORS}]*|[${SEPARATORS}]+`, 'gu');

export function breakOpportunities(text: string): string[] {
  return (text.match(PIECE) ?? []).filter((piece) => piece.length > 0);
}

/** Identifiers a line must not break inside, though they have hyphens: CVE, GHSA and CWE ids. */
export const IDENTIFIER = /\b(?:CVE-\d{4}-\d+|GHSA(?:-[0-9a-z]{4}){3}|CWE-\d+)\b/gi;
