import type { RouteSpec } from '@bulwark/platform';

/** Routes the gateway answers itself. */
export const gatewayRoutes: RouteSpec[] = [
  {
    operationId: 'openApiDocument', method: 'get', path: '/api/v1/swagger/doc.json', service: 'gateway', tag: 'Documentation', access: { kind: 'public' },
    summary: 'This OpenAPI 3.1 document',
  },
  {
    operationId: 'swaggerUi', method: 'get', path: '/api/v1/swagger/index.html', service: 'gateway', tag: 'Documentation', access: { kind: 'public' },
    summary: 'Interactive API description (Swagger UI)',
  },
];
