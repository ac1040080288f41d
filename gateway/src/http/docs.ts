import path from 'node:path';
import express from 'express';
import { buildOpenApiDocument, ROUTES } from '@bulwark/contracts';
import { pagePolicy, pageSecurityHeaders } from './security-headers';

const DOC_PATH = '/api/v1/swagger/doc.json';
/** The same without the removed operations: a generated client should have no function that can only answer 410. */
const CLIENT_DOC_PATH = '/api/v1/swagger/client.json';
// The package's folder, found without requiring its index, which would run the 1.5 MB browser bundle in Node at every start.
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Swagger UI's policy: its bundle, initializer and stylesheets are files of this origin, so the console's holds. */
const SWAGGER_CSP = pagePolicy(["script-src 'self'", "style-src 'self'"]);

/**
 * The initializer, served as a file so the page runs no inline script. The base layout leaves out
 * the standalone top bar: its logo carries an inline style the policy refuses, and its box loads any
 * other document by URL. The token a user authorizes with stays in the page's memory:
 * `persistAuthorization` would keep it in localStorage, where any script of the origin could read it
 * long after.
 */
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(DOC_PATH)}, dom_id: '#swagger-ui', deepLinking: true,
    persistAuthorization: false, queryConfigEnabled: false, presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' });
};
`;

/** The OpenAPI document and Swagger UI, both served from this process (no CDN), the page with the console's security headers. */
export function docsRouter(version: string): express.Router {
  const document = buildOpenApiDocument(ROUTES, version);
  const clientDocument = buildOpenApiDocument(
    ROUTES.filter((r) => !r.gone),
    version,
  );
  const router = express.Router();
  router.get(DOC_PATH, (_req, res) => {
    res.json(document);
  });
  router.get(CLIENT_DOC_PATH, (_req, res) => {
    res.json(clientDocument);
  });
  router.use('/api/v1/swagger', pageSecurityHeaders(SWAGGER_CSP));
  router.get('/api/v1/swagger/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(INITIALIZER);
  });
  router.get('/api/v1/swagger', (_req, res) => res.redirect(301, '/api/v1/swagger/index.html'));
  router.use('/api/v1/swagger', express.static(SWAGGER_UI_DIR, { index: 'index.html' }));
  return router;
}
