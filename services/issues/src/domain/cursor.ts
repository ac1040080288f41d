import { invalidField, isUuid } from '@bulwark/platform';
import { INT4_MAX, ISSUE_SORTS } from '@bulwark/contracts';

export type SortKey = (typeof ISSUE_SORTS)[number];

/** Where a keyset page starts: after the row with this sort value and id, in this order. */
export interface IssueCursor {
  sort: SortKey;
  desc: boolean;
  value: string | number;
  id: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const isInstant = (v: unknown) => typeof v === 'string' && ISO_INSTANT.test(v) && new Date(v).toISOString() === v;
const isInt = (max: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;

/** The value each sort puts in a cursor, as its column holds it (cvss: the highest score, -1 for none). */
const VALID_VALUE: Record<SortKey, (v: unknown) => boolean> = {
  first_detected_at: isInstant,
  last_detected_at: isInstant,
  severity: isInt(32767),
  status: isInt(INT4_MAX),
  risk_score: isInt(100),
  sla_due_at: isInstant,
  cvss: (v) => typeof v === 'number' && Number.isFinite(v) && v >= -1 && v <= 10,
};

const orderOf = (sort: SortKey, desc: boolean) => `${desc ? '-' : ''}${sort}`;

export function encodeCursor(c: IssueCursor): string {
  return Buffer.from(JSON.stringify({ sort: orderOf(c.sort, c.desc), value: c.value, id: c.id })).toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Reads a cursor strictly: one made by `encodeCursor` for this very order, or a 400 naming `cursor`.
 * Its values reach SQL as bound parameters of the keyset condition, so nothing else may pass.
 */
export function decodeCursor(text: string, sort: SortKey, desc: boolean): IssueCursor {
  const refused = () =>
    invalidField(
      'cursor',
      `is not a cursor of this list in the order ${orderOf(sort, desc)}: use next_cursor of the previous page, with the same sort`,
    );
  if (!BASE64URL.test(text)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refused();
  const { sort: order, value, id, ...rest } = parsed as Record<string, unknown>;
  if (
    Object.keys(rest).length > 0 ||
    order !== orderOf(sort, desc) ||
    typeof id !== 'string' ||
    !isUuid(id) ||
    !VALID_VALUE[sort](value)
  )
    throw refused();
  return { sort, desc, value: value as string | number, id };
}
