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
  try {
    records = parse(source.read(0, source.size), {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: 16 << 20,
    }) as string[][];
  } catch (e) {
    throw new InputError(`invalid CSV: ${(e as Error).message}`);
  }
  if (records.length === 0) throw new InputError('CSV without a header row');
  const header = records[0].map((h) => h.trim());
  const rows = records.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
  return { header, rows };
}
