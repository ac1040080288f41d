import type { ServiceImpl } from '@bulwark/platform';
import { identityV1 } from '@bulwark/proto';
import type { Logins } from '../logins';
import type { Licensing } from '../license';
import type { Assignees } from '../assignees';

export function identityGrpc(
  logins: Logins,
  licensing: Licensing,
  assignees: Assignees,
): ServiceImpl<typeof identityV1.IdentityServiceService> {
  return {
    async findAssignees(req) {
      const reach = req.projectCodes.length
        ? { projectCodes: req.projectCodes, permission: req.permission }
        : undefined;
      return { assignees: await assignees.find(req.refs, req.search, req.limit, reach) };
    },
    async getLicenseLimits() {
      const { limits, status } = await licensing.limits();
      return {
        status,
        limits: Object.entries(limits).map(([key, max]) => ({ key, unlimited: max === null, max: max ?? 0 })),
      };
    },
    async authenticate(req) {
      const { principal, expiresAt } = await logins.authenticate(req.token);
      return {
        userId: principal.userId,
        username: principal.username,
        permissions: Object.entries(principal.permissions).map(([key, letters]) => ({ key, letters })),
        allProjects: principal.projects === null,
        projects: principal.projects ?? [],
        scopes: Object.fromEntries(
          Object.entries(principal.scopes ?? {}).map(([k, v]) => [k, { allProjects: v === null, projects: v ?? [] }]),
        ),
        tokenKind: principal.tokenKind,
        tokenId: principal.tokenId,
        expiresAt,
      };
    },
  };
}
