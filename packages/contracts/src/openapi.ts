import { OpenAPIRegistry, OpenApiGeneratorV31, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { RouteSpec } from '@bulwark/platform';
import { errorBody, MULTI_MAX_VALUES } from './common';
import { closedTuples, nameInlineObjects, nullableReferences, registerNamedSchemas } from './openapi-components';
import { nulFreeRequests } from './openapi-nul';
import { PERMISSION_LETTERS } from './permissions';
import { SETTINGS_PER_TYPE } from './schemas/catalog';
import { WEBHOOK_EVENT_DATA, webhookBodySchema } from './webhooks';
import { z } from './zod';

const CONVENTIONS = `
Conventions of every service:

- **Authentication**: every /api/v1 route except \`POST /auth/login\`, \`POST\`/\`DELETE /auth/session\`, \`GET /ldap/allowed\`, \`GET /sso/allowed\`, \`GET /sso/login\`, \`GET /sso/callback\` and this documentation needs \`Authorization: Bearer <token>\`: a login JWT (9 h by default) or an API token; a browser may instead send the session cookie set by \`POST /auth/session\`, with \`X-CSRF-Token\` on unsafe methods (403 without it). Missing, malformed, expired or revoked: 401. Authenticated without the route's permission (\`x-permission\` on each operation): 403.
- **Permissions**: a role maps permission keys to letters: ${Object.entries(PERMISSION_LETTERS)
  .map(([l, m]) => `\`${l}\` ${m}`)
  .join(', ')}.
- **Project scope** (\`x-permission.project_scope\` on each operation): a role limited to some projects gives its letters on those only. \`project\`: objects of one project; another project's answers 404 and lists leave it out. \`project-set\`: objects that apply to a set of projects (every project, by tag, by code); a limited caller sees those touching its projects (with only its own projects' codes and tags) and changes one only when the set lies within its projects, never one for every project or by tag (403). \`organisation\`: objects of the whole organisation; reading needs the letter, changing needs it on every project (403). \`unscoped\`: organisation settings, read and changed only with the letter on every project. \`grants\`: users, roles and groups; a caller grants, and acts on users who hold, only rights it holds itself on the same projects (403 naming the missing permission), and only administrators give or take the \`admin\` role.
- **Success**: 200 with the resource as JSON; a created resource includes its \`id\` (projects also their \`code\`). Ids of records are strings; times are ISO 8601 UTC.
- **Lists**: \`{ "items": [...], "total": N, "page": P, "limit": L }\`; \`page\` from 1, \`limit\` default 50, maximum 1000 (above: 400). Unknown query parameters: 400 naming them. A multi-valued filter (the parameter repeated) takes at most ${MULTI_MAX_VALUES} values; the request line and headers together take at most 16 KiB (431 above).
- **Bulk operations** take \`{ "ids": [...] }\` (projects: \`{ "codes": [...] }\`) and answer per id what was done.
- **Errors**: \`{ "error": { "code", "message", "details": [ { "field", "problem" } ] } }\`: 400 invalid input (naming every bad field; also a path, query or header whose bytes are not UTF-8 or well-formed percent-encoding, naming the part), 401, 403, 404 unknown id, 405 known path with another method (with \`Allow\`), 408 request not received in full in time, 409 conflict, 410 removed endpoint, 413 body too large, 429 rate limited (with Retry-After), 431 request line and headers above 16 KiB, 500 without internals.
- **Request id**: \`X-Request-Id\` is accepted or generated, returned, and carried through every service, gRPC call and event.
`;

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Invalid input; details name every bad field',
  401: 'Missing, invalid, expired or revoked token',
  403: 'Insufficient rights',
  404: 'Unknown id',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  429: 'Rate limited; see Retry-After',
  431: 'Request line and headers too large (above 16 KiB, e.g. a very long query string)',
};

/** A JSON report sent as JSON (what a generated client's default serializer does with an object). */
const uploadedJson = z.record(z.string(), z.unknown()).openapi('UploadedJson', {
  description: 'A report whose top level is a JSON object; any other report goes as bytes',
});

/** An upload's body: any bytes, or a JSON report as JSON. */
function uploadBody(maxBytes: number) {
  return {
    content: {
      'application/octet-stream': { schema: { type: 'string' as const, format: 'binary' } },
      'application/json': { schema: uploadedJson },
    },
    required: true,
    description: `The file, at most ${maxBytes} bytes, of any content type (XML, CSV and the others as application/octet-stream)`,
  };
}

/** The media types of a 200 body: a file's, or the JSON response's. */
function successContent(route: RouteSpec) {
  if (route.files)
    return Object.fromEntries(
      Object.entries(route.files).map(([type, kind]) => [
        type,
        {
          schema:
            kind === 'text'
              ? { type: 'string' as const }
              : kind === 'binary'
                ? { type: 'string' as const, format: 'binary', contentMediaType: type }
                : kind,
        },
      ]),
    );
  return route.response ? { 'application/json': { schema: route.response } } : undefined;
}

/** The route's path parameters; a route without a schema for them (a removed one) declares each as a string. */
function pathParameters(route: RouteSpec): z.ZodObject | undefined {
  if (route.request?.params) return route.request.params;
  const names = [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
  return names.length > 0 ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;
}

export function buildOpenApiDocument(routes: RouteSpec[], version: string): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A login JWT from POST /api/v1/auth/login or an API token from POST /api/v1/token',
  });
  const signature = registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'What a webhook receiver checks (Standard Webhooks): the HMAC-SHA256 of id.timestamp.body with the notifier\u2019s signing secret, sent when it has one; a notifier\u2019s token, when set, goes in the header the notifier names',
  });
  registry.register('Error', errorBody);
  registerNamedSchemas(registry, [
    ...routes.flatMap((r) =>
      [r.request?.body, r.response, ...Object.values(r.files ?? {})].filter(
        (s): s is z.ZodType => typeof s === 'object',
      ),
    ),
    // Referred to by name from the bodies' if/then, not reached through their properties.
    ...SETTINGS_PER_TYPE,
  ]);

  for (const route of routes) {
    const common = Object.entries(ERROR_RESPONSES).filter(([status]) =>
      route.access.kind === 'public' ? status !== '401' && status !== '403' : true,
    );
    const errors = Object.fromEntries(
      [...common, ...Object.entries(route.errors ?? {})].map(([status, description]) => [
        status,
        { description, content: { 'application/json': { schema: errorBody } } },
      ]),
    );
    const config: RouteConfig = {
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      security: route.access.kind === 'public' ? [] : [{ [bearer.name]: [] }],
      request: {
        params: pathParameters(route),
        // A query that maps its keys after validation is documented by the keys it validates.
        query: route.request?.query instanceof z.ZodPipe ? route.request.query.in : route.request?.query,
        body: route.upload
          ? uploadBody(route.upload.maxBytes)
          : route.request?.body
            ? { content: { 'application/json': { schema: route.request.body } }, required: true }
            : undefined,
      },
      responses: route.gone
        ? { 410: { description: route.gone, content: { 'application/json': { schema: errorBody } } } }
        : {
            ...(route.redirect
              ? {
                  302: {
                    description: route.redirect,
                    headers: {
                      Location: { description: 'Where the browser goes next', schema: { type: 'string' as const } },
                    },
                  },
                }
              : {
                  200: { description: 'Success', content: successContent(route) },
                }),
            ...errors,
          },
      ...(route.gone ? { deprecated: true } : {}),
      ...(route.access.kind === 'permission'
        ? {
            'x-permission': { key: route.access.key, letter: route.access.letter, project_scope: route.access.scope },
          }
        : {}),
    };
    registry.registerPath(config);
  }

  // What notifiers send: one webhook per event type, its body's schema with the layout's version.
  const signatureHeaders = z.object({
    'webhook-id': z
      .string()
      .openapi({ description: 'The delivery\u2019s id, the same on every retry (deduplicate on it)' }),
    'webhook-timestamp': z.string().openapi({ description: 'Unix seconds when this attempt was signed' }),
    'webhook-signature': z.string().optional().openapi({
      description:
        'Standard Webhooks: space-separated v1,<base64 HMAC-SHA256 of id.timestamp.body>, one per signing secret',
    }),
    'x-bulwark-event': z.string().openapi({ description: 'The event type' }),
  });
  for (const [type, kind] of Object.entries(WEBHOOK_EVENT_DATA)) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace(/\W/g, '_')}`,
      summary: kind.summary,
      tags: ['Webhooks'],
      security: [{ [signature.name]: [] }, {}],
      request: {
        headers: signatureHeaders,
        body: { content: { 'application/json': { schema: webhookBodySchema(type) } }, required: true },
      },
      responses: { 200: { description: 'Any 2xx answer acknowledges the delivery; anything else is retried' } },
    });
  }

  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Bulwark API',
      version,
      description: `Application security orchestration.\n${CONVENTIONS}`,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    // Every operation says its own (public ones none); this is what a tool assumes of one that does not.
    security: [{ [bearer.name]: [] }],
  }) as unknown as Parameters<typeof nameInlineObjects>[0];
  nullableReferences(document);
  closedTuples(document);
  nameInlineObjects(document);
  nulFreeRequests(document);
  return document;
}
