/** Longest text kept from one value coming from a scanner or a repository (a title, a path). */
export const MAX_TEXT = 300;

const ZWSP = '\u200B';

/**
 * Text from a scanner or a repository as inert Markdown on GitHub and GitLab: every character that
 * can open a link, image, emphasis, code, table cell, math or HTML is escaped (a leading list or
 * heading marker too), line breaks and control characters become spaces (no new block), and what
 * the platforms turn into links or notifications after parsing (mentions, issue and merge request
 * references, addresses) is broken by a zero-width space. Path characters (`.` `/` `:` `-`) stay as
 * they are in the middle, so `src/app.py:3` reads the same raw. Bounded to `max` characters.
 */
export function escapeMarkdown(text: string, max = MAX_TEXT): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .trim()
    .slice(0, max);
  return flat
    .replace(/[\\`*_{}[\]()<>#!|~&@^$]/g, (c) => `\\${c}`)
    .replace(/^([-+=])/, '\\$1')
    .replace(/^(\d+)([.)])/, '$1\\$2')
    .replace(/([@#!$&~^])/g, `$1${ZWSP}`)
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/www/gi, (w) => `${w[0]}${ZWSP}${w.slice(1)}`);
}
