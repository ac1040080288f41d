import { z } from '../zod';
import { isoDateTime } from '../common';
import { LICENSE_EXPIRING_DAYS, LICENSE_LIMIT_MEANINGS } from '../license';

export const limitsShape = z.object({
  projects: z.number().int().nullable().openapi({ description: LICENSE_LIMIT_MEANINGS.projects }),
  users: z.number().int().nullable().openapi({ description: LICENSE_LIMIT_MEANINGS.users }),
  scanning_processes: z.number().int().nullable().openapi({ description: LICENSE_LIMIT_MEANINGS.scanning_processes }),
});

export const limitsView = limitsShape.openapi('LicenseLimits', { description: 'null: unlimited' });

export const licenseStatusView = z
  .object({
    status: z.enum(['valid', 'expiring', 'expired', 'community']).openapi({
      description: `valid; expiring (${LICENSE_EXPIRING_DAYS} days or fewer left); expired (community limits apply again); community (no license installed)`,
    }),
    edition: z.string(),
    days_left: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Whole days until expiry (0 once expired); null without a license' }),
    expires_at: isoDateTime.nullable(),
  })
  .openapi('LicenseStatus');

export const licenseView = licenseStatusView
  .extend({
    installed: z.boolean().openapi({ description: 'Whether a license is installed; false: the community edition' }),
    id: z.string().nullable(),
    licensee: z.string().nullable(),
    installation_id: z.string(),
    issued_at: isoDateTime.nullable(),
    installed_at: isoDateTime.nullable(),
    limits: limitsView.openapi({ description: 'The limits in force now (the community ones without a valid license)' }),
    // Inline rather than the registered component: a reference made nullable loses its null in the document.
    license_limits: limitsShape.nullable().openapi({
      description: 'The limits the installed license grants (also once it has expired); null without a license',
    }),
    features: z.array(z.string()),
  })
  .openapi('License');
