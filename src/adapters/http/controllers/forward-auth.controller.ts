import { RequestHandler, Response, Router } from 'express';
import { AuthorizeForwardedMcpRequest } from '../../../application/use-cases/forward-auth/authorize-forwarded-mcp-request.use-case';
import { AuthorizeForwardedRequest } from '../../../application/use-cases/forward-auth/authorize-forwarded-request.use-case';
import { Scope } from '../../../domain/scope';
import { ValidateKey } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { UsageGate } from '../../mcp/usage-gate';
import { bodilessErrors } from '../forward-auth/bodiless-errors';
import { ForwardedMcpRequest, forwardedMcpRequestOf } from '../forward-auth/forwarded-mcp-request';
import { requiredScopeOf } from '../forward-auth/required-scope';
import { apiKeyAuth, principalOf } from '../middleware/api-key-auth';
import { logOf } from '../middleware/request-logging';

export const FORWARD_AUTH_PATH = '/authz';

/**
 * Forward auth for NGINX auth_request, Traefik ForwardAuth and Envoy ext_authz:
 * the key of the forwarded request checked exactly as /mcp checks it (the
 * same validation, cache, failed-validation limit and rate limit), then the
 * required scope. Every method is served and so is every path under /authz,
 * since Envoy sends the original method and appends the original path.
 * In order: the required scope (400), `first` (the failed-validation limit,
 * 429), the key (401), its rate limit (429, counted for every call with a
 * valid key), the scope (403), else 200 naming the user, key and scopes.
 * With `?server=` (or X-Keygate-Mcp-Server) the forwarded request is an MCP
 * request to that server of the key's owner, judged from its Mcp-* headers
 * alone (forwarded-mcp-request.ts: 400 with the required scope's), and after
 * the scope: an unknown server 404, a tools/call /mcp would refuse 403.
 */
export class ForwardAuthController {
  constructor(
    private readonly validateKey: ValidateKey,
    private readonly usage: UsageGate,
    private readonly authorize: AuthorizeForwardedRequest,
    private readonly authorizeMcp: AuthorizeForwardedMcpRequest,
  ) {}

  mount(app: Router, ...first: RequestHandler[]): void {
    const router = Router();
    router.use(
      noStore,
      (req, res, next) => {
        res.locals.requiredScope = requiredScopeOf(req);
        res.locals.mcpRequest = forwardedMcpRequestOf(req);
        next();
      },
      ...first,
      apiKeyAuth(this.validateKey),
      this.usage.admitRequest,
      (_req, res) => this.allow(res),
    );
    router.use(bodilessErrors((error, req) => logOf(req).error({ err: error }, 'forward auth failed')));
    app.use(FORWARD_AUTH_PATH, router);
  }

  private async allow(res: Response): Promise<void> {
    const principal = principalOf(res.locals);
    const identity = this.authorize.execute({ principal, requiredScope: res.locals.requiredScope as Scope | null });
    const mcp = res.locals.mcpRequest as ForwardedMcpRequest | null;
    if (mcp !== null) await this.authorizeMcp.execute({ principal, ...mcp });
    res.setHeader('X-Keygate-User-Id', identity.userId);
    res.setHeader('X-Keygate-Key-Id', identity.keyId);
    res.setHeader('X-Keygate-Scopes', identity.scopes === 'all' ? '*' : identity.scopes.join(','));
    res.status(200).end();
  }
}

/** A decision is about one request at one moment: nothing between proxy and keygate may keep it. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
