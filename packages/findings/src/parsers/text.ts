/** Text helpers for the HTML fragments and local date formats that DAST and network scanners write. */

/** Dates as Acunetix and Qualys write them, day or month first, into ISO 8601 (no time zone). */
export function isoDate(text: string | undefined, order: 'dmy' | 'mdy'): string | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{2,4})(?:,?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(AM|PM)?)?/i.exec(
    text?.trim() ?? '',
  );
  if (!m) return undefined;
  const [day, month] = order === 'dmy' ? [m[1], m[2]] : [m[2], m[1]];
  const year = m[3].length === 2 ? `20${m[3]}` : m[3];
  let hour = Number(m[4] ?? 0);
  if (m[7]?.toUpperCase() === 'PM' && hour < 12) hour += 12;
  if (m[7]?.toUpperCase() === 'AM' && hour === 12) hour = 0;
  const pad = (n: string | number): string => String(n).padStart(2, '0');
  const date = `${year}-${pad(month)}-${pad(day)}`;
  return m[4] === undefined ? date : `${date}T${pad(hour)}:${pad(m[5])}:${pad(m[6] ?? 0)}`;
}

/** Text of an HTML fragment: tags dropped, the common entities decoded, blank lines collapsed. */
export function htmlText(html: string | undefined): string | undefined {
  if (!html) return undefined;
  const text = html
    .replace(/<br\s*\/?>|<\/(p|li|div|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text || undefined;
}

/** Link targets of an HTML fragment (`href="..."`), else the bare URLs in it. */
export function htmlLinks(html: string | undefined): string[] {
  if (!html) return [];
  const hrefs = [...html.matchAll(/href\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
  // A bare URL ends before the punctuation of the sentence around it.
  const links = hrefs.length
    ? hrefs
    : [...html.matchAll(/https?:\/\/[^\s<>"')]+/g)].map((m) => m[0].replace(/[.,;:!?]+$/, ''));
  return [...new Set(links)];
}
