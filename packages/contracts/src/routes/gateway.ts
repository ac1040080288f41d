import type { RouteSpec } from '@bulwark/platform';
import { z } from '../zod';
import { loginBody } from '../schemas/identity';
import {
  SESSION_COOKIE,
  CSRF_COOKIE,
  CSRF_HEADER,
  sessionResponse,
  SSO_BROWSER_COOKIE,
  signedOutResponse,
} from '../schemas/gateway';

const openApiDocument = z.record(z.string(), z.unknown()).openapi('OpenApiDocument');

/** Routes the gateway answers itself. */
export const gatewayRoutes: RouteSpec[] = [
  {
    operationId: 'openApiDocument',
    method: 'get',
    path: '/api/v1/swagger/doc.json',
    service: 'gateway',
    tag: 'Documentation',
    access: { kind: 'public' },
    summary: 'This OpenAPI 3.1 document',
    description: 'Every operation, removed ones included (deprecated, answering 410).',
    response: openApiDocument,
  },
  {
    operationId: 'openApiClientDocument',
    method: 'get',
    path: '/api/v1/swagger/client.json',
    service: 'gateway',
    tag: 'Documentation',
    access: { kind: 'public' },
    summary: 'The OpenAPI document to generate clients from: this one without the removed operations',
    response: openApiDocument,
  },
  {
    operationId: 'swaggerUi',
    method: 'get',
    path: '/api/v1/swagger/index.html',
    service: 'gateway',
    tag: 'Documentation',
    access: { kind: 'public' },
    summary: 'Interactive API description (Swagger UI)',
    files: { 'text/html': 'text' },
  },
  {
    operationId: 'createSession',
    method: 'post',
    path: '/api/v1/auth/session',
    service: 'gateway',
    tag: 'Authentication',
    access: { kind: 'public' },
    summary: 'Log in for a browser: the same login as POST /auth/login, the token set as a cookie instead of returned',
    description:
      `Sets ${SESSION_COOKIE} (HttpOnly, SameSite=Strict, Secure over HTTPS), which every route then accepts in place of the Authorization header, ` +
      `and ${CSRF_COOKIE} (readable by the page): a request with an unsafe method (POST, PUT, PATCH, DELETE) authenticated by the cookie must send its value in ${CSRF_HEADER}, else 403; the value is signed for this session's token, so one not issued with the session cookie beside it is refused as well. ` +
      'A request with an Authorization header is authenticated by that header alone. Local and directory (LDAP) users alike; throttled as POST /auth/login.',
    request: { body: loginBody },
    response: sessionResponse,
    errors: {
      401: 'Wrong username or password, a disabled directory account, or the user cannot log in locally',
      503: 'The directory (LDAP) or the identity service cannot be reached',
    },
  },
  {
    operationId: 'startSsoSession',
    method: 'get',
    path: '/api/v1/auth/session/sso',
    service: 'gateway',
    tag: 'Authentication',
    access: { kind: 'public' },
    summary: 'Single sign-on into the browser session: 302 to GET /api/v1/sso/login, marking this browser\u2019s flow',
    description: `Sets the ${SSO_BROWSER_COOKIE} cookie (HttpOnly, SameSite=Lax so the provider's redirect back carries it, 10 minutes, only for /api/v1/sso/callback). A callback that carries it sets the session and CSRF cookies, as POST /auth/session does, and answers 302 to /; a failed sign-on answers 302 to /?sso_error=<message>. A callback without it answers the login JSON as before, for API clients.`,
    redirect: 'To GET /api/v1/sso/login',
  },
  {
    operationId: 'deleteSession',
    method: 'delete',
    path: '/api/v1/auth/session',
    service: 'gateway',
    tag: 'Authentication',
    access: { kind: 'public' },
    summary:
      'Log out: revokes the session cookie\u2019s token (POST /auth/logout) and clears the session and CSRF cookies',
    description:
      'With the session cookie, the X-CSRF-Token header must equal the CSRF cookie (403 otherwise). The token is refused from then on, also where its value was copied. 503 when identity could not revoke it (the cookies are cleared all the same).',
    response: signedOutResponse,
    errors: { 403: 'The CSRF header is missing or wrong', 503: 'The token could not be revoked' },
  },
];
