import type { RouteSpec } from '@bulwark/platform';
import { gatewayRoutes } from './routes/gateway';
import { identityRoutes } from './routes/identity';
import { licenseRoutes } from './routes/license';
import { catalogRoutes } from './routes/catalog';
import { scanningRoutes } from './routes/scanning';
import { issuesRoutes } from './routes/issues';
import { reportingRoutes } from './routes/reporting';
import { notificationsRoutes } from './routes/notifications';
import { trackerRoutes } from './routes/trackers';
import { triageRoutes } from './routes/triage';
import { intelRoutes } from './routes/intel';
import { slaRoutes } from './routes/sla';
import { issueViewRoutes } from './routes/issue-views';
import { assistantRoutes } from './routes/assistants';

/** The one route table: every /api/v1 path, its owner and the permission it needs. */
export const ROUTES: RouteSpec[] = [
  ...gatewayRoutes,
  ...identityRoutes,
  ...licenseRoutes,
  ...catalogRoutes,
  ...scanningRoutes,
  ...issuesRoutes,
  ...trackerRoutes,
  ...triageRoutes,
  ...intelRoutes,
  ...slaRoutes,
  ...issueViewRoutes,
  ...assistantRoutes,
  ...reportingRoutes,
  ...notificationsRoutes,
];

export function routesOf(service: string): RouteSpec[] {
  return ROUTES.filter((r) => r.service === service);
}
