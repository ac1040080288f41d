import type { Queryable } from '@bulwark/platform';

/** Every column that holds a sealed secret. */
const SEALED_COLUMNS = [
  { table: 'sources', key: 'id', column: 'password_sealed' },
  { table: 'sources', key: 'id', column: 'ssh_key_sealed' },
  { table: 'tools', key: 'id', column: 'api_token_sealed' },
  { table: 'source_decorations', key: 'source_id', column: 'token_sealed' },
] as const;

export interface SealedValue {
  table: string;
  /** The table's key column, which `id` is a value of. */
  key: string;
  column: string;
  id: string;
  sealed: string;
}

/** Sealed secrets across tables, so they can be sealed again after the master key rotates. */
export const sealedStore = {
  async all(db: Queryable): Promise<SealedValue[]> {
    const out: SealedValue[] = [];
    for (const { table, key, column } of SEALED_COLUMNS) {
      const rows: Record<string, string>[] = await db(table).whereNotNull(column).select(key, column);
      for (const r of rows) out.push({ table, key, column, id: r[key], sealed: r[column] });
    }
    return out;
  },

  async replace(db: Queryable, v: SealedValue, sealed: string): Promise<void> {
    await db(v.table)
      .where({ [v.key]: v.id })
      .update({ [v.column]: sealed });
  },
};
