import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { perm } from '../common';
import { COMMUNITY_LIMITS, LICENSE_FORM, LICENSE_FORM_PROBLEM } from '../license';
import { limitsView, licenseStatusView, licenseView } from '../schemas/license';

/** Identity owns the license: it holds the installation id, counts users, and every gateway already asks it about each caller. */
const service = 'identity';
const licenseP = (l: 'r' | 'w') => perm('administration.license', l, 'unscoped');

export const licenseRoutes = [
  {
    operationId: 'getLicense',
    method: 'get',
    path: '/api/v1/license',
    service,
    tag: 'License',
    access: licenseP('r'),
    summary: 'The installed license, or the community edition and its limits',
    description: `Without a license Bulwark is the community edition: ${Object.entries(COMMUNITY_LIMITS)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}. Over a limit, creating more answers 409 naming the limit; nothing already stored stops working.`,
    response: licenseView,
  },
  {
    operationId: 'installLicense',
    method: 'put',
    path: '/api/v1/license',
    service,
    tag: 'License',
    access: licenseP('w'),
    summary: 'Install a license (replaces the installed one)',
    description:
      'The license text is BWL1.<document>.<Ed25519 signature>, as the vendor issues it. A bad signature, an expired license or one for another installation answers 400 and nothing is stored.',
    request: {
      body: z
        .object({
          license: z
            .string()
            .min(1)
            .max(16384)
            .regex(LICENSE_FORM, LICENSE_FORM_PROBLEM)
            .openapi({ description: 'The license text from the vendor' }),
        })
        .strict()
        .openapi('LicenseInstall'),
    },
    response: licenseView,
  },
  {
    operationId: 'licenseStatus',
    method: 'get',
    path: '/api/v1/license/status',
    service,
    tag: 'License',
    access: licenseP('r'),
    summary: 'valid, expiring (with days left), expired or community',
    response: licenseStatusView,
  },
  {
    operationId: 'licenseEnvironment',
    method: 'get',
    path: '/api/v1/license/environment',
    service,
    tag: 'License',
    access: licenseP('r'),
    summary:
      'What a vendor needs to issue a license: the installation id, the version, and what is in use against each limit',
    description: 'A count its service cannot give now is null.',
    response: z
      .object({
        installation_id: z.string(),
        version: z.string(),
        edition: z.string(),
        limits: limitsView,
        in_use: z.object({
          projects: z.number().int().nullable(),
          users: z.number().int().nullable(),
          scanning_processes: z.number().int().nullable(),
        }),
      })
      .openapi('LicenseEnvironment'),
  },
] as const satisfies readonly RouteSpec[];
