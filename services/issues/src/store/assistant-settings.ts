import { iso, Queryable } from '@bulwark/platform';

interface SettingsRow {
  write_tools: boolean;
  updated_at: Date;
}
export interface AssistantSettingsRecord {
  writeTools: boolean;
  /** Null until the first change. */
  updatedAt: string | null;
}

export const assistantSettingsStore = {
  async get(db: Queryable): Promise<AssistantSettingsRecord> {
    const row = await db('assistant_settings').where('id', 1).first<SettingsRow | undefined>();
    return row
      ? { writeTools: row.write_tools, updatedAt: iso(row.updated_at) }
      : { writeTools: false, updatedAt: null };
  },

  async save(db: Queryable, writeTools: boolean): Promise<AssistantSettingsRecord> {
    const values = { write_tools: writeTools, updated_at: db.fn.now() };
    const [row] = await db('assistant_settings')
      .insert({ id: 1, ...values })
      .onConflict('id')
      .merge(values)
      .returning<SettingsRow[]>('*');
    return { writeTools: row.write_tools, updatedAt: iso(row.updated_at) };
  },
};
