import type { Migration } from '@bulwark/platform';

/**
 * A risk acceptance ended before its time: who revoked it, when and why, beside the approver's
 * decision, which the revocation must not overwrite. Nullable columns without a default rewrite no row.
 */
export const riskAcceptanceRevocationMigration: Migration = {
  name: '0021_risk_acceptance_revocation',
  async up(db) {
    await db.schema.alterTable('risk_acceptances', (t) => {
      t.text('revoked_by');
      t.timestamp('revoked_at', { useTz: true });
      t.text('revocation_comment');
    });
  },
};
