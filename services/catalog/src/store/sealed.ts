import type { Queryable } from '@bulwark/platform';

/** Every column that holds a sealed secret. */
const SEALED_COLUMNS = [
  { table: 'sources', column: 'password_sealed' },
  { table: 'sources', column: 'ssh_key_sealed' },
  { table: 'tools', column: 'api_token_sealed' },
] as const;

export interface SealedValue {
  table: string;
  column: string;
  id: string;
  sealed: string;
}

/** Sealed secrets across tables, so they can be sealed again after the master key rotates. */
export const sealedStore = {
  async all(db: Queryable): Promise<SealedValue[]> {
    const out: SealedValue[] = [];
    for (const { table, column } of SEALED_COLUMNS) {
      const rows: Record<string, string>[] = await db(table).whereNotNull(column).select('id', column);
      for (const r of rows) out.push({ table, column, id: r.id, sealed: r[column] });
    }
    return out;
  },

  async replace(db: Queryable, v: SealedValue, sealed: string): Promise<void> {
    await db(v.table)
      .where({ id: v.id })
      .update({ [v.column]: sealed });
  },
};
