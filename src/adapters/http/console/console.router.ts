import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Request, Router } from 'express';
import helmet from 'helmet';
import { problemType, sendProblem } from '../../edge/problem';

export interface ConsoleOptions {
  /** The built console: index.html and hashed files under assets/. */
  dir: string;
  clientId: string;
  /** The identity provider's issuer URL; null with none configured. Given the request, for the development provider. */
  issuer: (req: Request) => string | null;
  /** Extra origins the browser may fetch from (the issuer's discovery and token endpoints). */
  issuerOrigin: string | null;
}

/** The console page an upstream's authorization server sends the browser back to (the redirect URI of oauth connections). */
export const CONNECTION_CALLBACK_PAGE = '/console/connections/callback';

/**
 * The key console at /console/: static files only, talking to the public REST API with the user's
 * access token. Its CSP allows no inline script or style and no origin but this one and the issuer's.
 */
export function consoleRouter(options: ConsoleOptions): Router {
  const router = Router();
  const connect = ["'self'", ...(options.issuerOrigin ? [options.issuerOrigin] : [])];
  router.use(
    '/console',
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          'default-src': ["'self'"],
          'script-src': ["'self'"],
          'style-src': ["'self'"],
          'img-src': ["'self'", 'data:'],
          'connect-src': connect,
          'frame-ancestors': ["'none'"],
          'base-uri': ["'none'"],
          'form-action': ["'self'"],
          'object-src': ["'none'"],
        },
      },
      // The authorization code arrives in the URL: never hand it to another site.
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );
  router.get('/console', (req, res, next) => (req.path === '/console' ? res.redirect(301, '/console/') : next()));
  router.get('/console/config.json', (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ issuer: options.issuer(req), client_id: options.clientId });
  });
  const built = existsSync(path.join(options.dir, 'index.html'));
  if (!built) {
    router.use('/console', (_req, res) =>
      sendProblem(res, {
        type: problemType('route-not-found'),
        title: 'Not Found',
        status: 404,
        detail: 'The console is not built: run npm run build',
      }),
    );
    return router;
  }
  // The single page again: it hands the query to the API as its signed-in user (web/src/connection-callback.ts).
  router.get(CONNECTION_CALLBACK_PAGE, (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.sendFile(path.join(options.dir, 'index.html'));
  });
  router.use(
    '/console',
    express.static(options.dir, {
      index: 'index.html',
      redirect: false,
      fallthrough: true,
      setHeaders: (res, file) => {
        const hashed = path.relative(options.dir, file).startsWith(`assets${path.sep}`);
        res.setHeader('Cache-Control', hashed ? `public, max-age=${365 * 24 * 3600}, immutable` : 'no-cache');
      },
    }),
  );
  return router;
}
