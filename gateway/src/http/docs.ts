import path from 'node:path';
import express from 'express';
import { buildOpenApiDocument, ROUTES } from '@bulwark/contracts';

const DOC_PATH = '/api/v1/swagger/doc.json';
// The package's folder, found without requiring its index, which would run the 1.5 MB browser bundle in Node at every start.
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The OpenAPI document and Swagger UI, both served from this process (no CDN). */
export function docsRouter(version: string): express.Router {
  const document = buildOpenApiDocument(ROUTES, version);
  const router = express.Router();
  router.get(DOC_PATH, (_req, res) => {
    res.json(document);
  });
  router.get('/api/v1/swagger/swagger-initializer.js', (_req, res) => {
    res
      .type('application/javascript')
      .send(
        `window.onload = function () {\n  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(DOC_PATH)}, dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true,\n    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });\n};\n`,
      );
  });
  router.get('/api/v1/swagger', (_req, res) => res.redirect(301, '/api/v1/swagger/index.html'));
  router.use('/api/v1/swagger', express.static(SWAGGER_UI_DIR, { index: 'index.html' }));
  return router;
}
