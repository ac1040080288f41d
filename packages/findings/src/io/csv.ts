import { parse } from 'csv-parse/sync';
import { InputError } from '../errors';
import { ByteSource } from './source';

export interface CsvDocument {
  header: string[];
  rows: Record<string, string>[];
}

export const MAX_CSV_BYTES = 256 << 20;

/** CSV reports are small tables; they are read whole, with a cap on size and on any one field. */
export function readCsv(source: ByteSource): CsvDocument {
  if (source.size > MAX_CSV_BYTES) throw new InputError(`CSV larger than ${MAX_CSV_BYTES >> 20} MiB`);
  let records: string[][];
  const bytes = source.read(0, source.size);
  try {
    records = parse(bytes, {
      bom: true,
      delimiter: delimiterOf(bytes),
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: 16 << 20,
    });
  } catch (e) {
    throw new InputError(`invalid CSV: ${(e as Error).message}`);
  }
  if (records.length === 0) throw new InputError('CSV without a header row');
  const header = records[0].map((h) => h.trim());
  const rows = records.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
  return { header, rows };
}

const DELIMITERS = [',', ';', '\t'];

/** The separator the header line uses most outside quotes (Prowler writes `;`); a comma on a tie. */
function delimiterOf(bytes: Buffer): string {
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const c of bytes.subarray(0, 1 << 16).toString('utf8')) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted) {
      const n = counts.get(c);
      if (n !== undefined) counts.set(c, n + 1);
    }
  }
  const countOf = (d: string) => counts.get(d) ?? 0;
  return DELIMITERS.reduce((best, d) => (countOf(d) > countOf(best) ? d : best));
}
