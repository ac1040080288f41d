import type { LicenseDocument } from '@bulwark/contracts';
import { iso, json, present, Queryable } from '@bulwark/platform';

export interface InstalledLicense {
  text: string;
  document: LicenseDocument;
  installedBy: string;
  installedAt: string;
  expiringNoticeDays: number | null;
  expiredNoticeSent: boolean;
}

interface LicenseRow {
  id: number;
  text: string;
  document: unknown;
  installed_by: string;
  installed_at: Date;
  expiring_notice_days: number | null;
  expired_notice_sent: boolean;
}

export const licenseStore = {
  async installationId(db: Queryable): Promise<string> {
    const row = await db<{ id: number; installation_id: string }>('installation').where({ id: 1 }).first();
    return present(row, 'the installation row').installation_id;
  },

  async get(db: Queryable, opts: { forUpdate?: boolean } = {}): Promise<InstalledLicense | undefined> {
    const q = db<LicenseRow>('license').where({ id: 1 });
    if (opts.forUpdate) q.forUpdate();
    const row = await q.first();
    if (!row) return undefined;
    return {
      text: row.text,
      document: json(row.document),
      installedBy: row.installed_by,
      installedAt: iso(row.installed_at),
      expiringNoticeDays: row.expiring_notice_days,
      expiredNoticeSent: row.expired_notice_sent,
    };
  },

  /** Installs a license in place of the one before; its notices start over. */
  async put(db: Queryable, text: string, document: LicenseDocument, installedBy: string): Promise<void> {
    await db('license')
      .insert({
        id: 1,
        text,
        document: JSON.stringify(document),
        installed_by: installedBy,
        installed_at: db.fn.now(),
        expiring_notice_days: null,
        expired_notice_sent: false,
      })
      .onConflict('id')
      .merge();
  },

  async noticesSent(db: Queryable, n: { expiringNoticeDays?: number; expiredNoticeSent?: boolean }): Promise<void> {
    await db('license')
      .where({ id: 1 })
      .update({
        ...(n.expiringNoticeDays !== undefined ? { expiring_notice_days: n.expiringNoticeDays } : {}),
        ...(n.expiredNoticeSent !== undefined ? { expired_notice_sent: n.expiredNoticeSent } : {}),
      });
  },
};
