import { Queryable, iso, json } from '@bulwark/platform';

export type LoginKind = 'ldap' | 'sso';

export interface LoginSettingsRecord {
  settings: Record<string, unknown>;
  secretSealed: string | null;
  updatedAt: string;
}

interface LoginSettingsRow {
  kind: LoginKind;
  settings: unknown;
  secret_sealed: string | null;
  updated_at: Date;
}

export const loginSettingsStore = {
  async get(db: Queryable, kind: LoginKind): Promise<LoginSettingsRecord | undefined> {
    const row = await db<LoginSettingsRow>('login_settings').where({ kind }).first();
    if (!row) return undefined;
    return { settings: json(row.settings), secretSealed: row.secret_sealed, updatedAt: iso(row.updated_at) };
  },

  async put(
    db: Queryable,
    kind: LoginKind,
    settings: Record<string, unknown>,
    secretSealed: string | null,
  ): Promise<void> {
    await db('login_settings')
      .insert({ kind, settings: JSON.stringify(settings), secret_sealed: secretSealed, updated_at: db.fn.now() })
      .onConflict('kind')
      .merge();
  },
};
