import { createHash } from 'node:crypto';
import path from 'node:path';
import { RequestHandler, Router } from 'express';
import helmet from 'helmet';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';

/** Swagger UI's files, served from its npm package: nothing comes from a CDN. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'swagger-ui.css',
  'swagger-ui-bundle.js': 'swagger-ui-bundle.js',
  'favicon.png': 'favicon-32x32.png',
};

// The page's only script of its own, served as a file so the policy needs no 'unsafe-inline'.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '${OPENAPI_PATH}', dom_id: '#swagger-ui', deepLinking: false, validatorUrl: null });
});
`;

// Deep links put a link inside each operation's toggle button (axe: nested-interactive), hence deepLinking: false
// above; these colours lift Swagger UI's to WCAG AA contrast (axe: color-contrast).
const OVERRIDES = `.swagger-ui .info .title small.version-stamp { background-color: #2b6a00; }
.swagger-ui .info .title small { background: #4d5462; }
.swagger-ui .info a, .swagger-ui .info .url { color: #1f5fa8; }
.swagger-ui .btn.authorize { color: #1d7a4f; border-color: #1d7a4f; }
.swagger-ui .btn.authorize svg { fill: #1d7a4f; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1a6fbf; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1d7a4f; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a35a00; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #11806a; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c0262b; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #595959; }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>keygate API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_PATH}/keygate.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

/** Scripts and styles from this origin only, no inline code, no framing; data: images are Swagger UI's icons. */
const strictPolicy = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
});

/**
 * GET /api/v1/openapi.json (public: it says nothing a caller could not learn
 * by trying) and GET /docs, Swagger UI over it. The document is serialised
 * once; its ETag changes only with a new build (Express answers 304 to a
 * matching If-None-Match).
 */
export function apiReferenceRouter(document: object): Router {
  const json = JSON.stringify(document);
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  const cacheable =
    (maxAgeSeconds: number): RequestHandler =>
    (_req, res, next) => {
      res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
      next();
    };
  const router = Router();
  router.get(OPENAPI_PATH, cacheable(300), (_req, res) => {
    res.setHeader('ETag', etag);
    res.type('application/json').send(json);
  });
  router.get(DOCS_PATH, strictPolicy, cacheable(300), (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get(`${DOCS_PATH}/init.js`, strictPolicy, cacheable(300), (_req, res) => {
    res.type('text/javascript').send(INIT_SCRIPT);
  });
  router.get(`${DOCS_PATH}/keygate.css`, strictPolicy, cacheable(300), (_req, res) => {
    res.type('text/css').send(OVERRIDES);
  });
  router.get(`${DOCS_PATH}/:file`, strictPolicy, cacheable(3600), (req, res, next) => {
    const name = String(req.params.file);
    const file = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (file === undefined) return next();
    res.sendFile(file, { root: SWAGGER_UI_DIR, dotfiles: 'deny' });
  });
  return router;
}
