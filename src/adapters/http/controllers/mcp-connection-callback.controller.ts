import { Request, Response, Router } from 'express';
import { ConnectUrl } from '../../../application/use-cases/gateway/external/upstream-credentials';
import { CompleteOAuthConnection } from '../../../application/use-cases/gateway/mcp-connections/complete-oauth-connection.use-case';

/**
 * GET /api/v1/mcp-servers/connections/callback?code=&state=: the redirect
 * URI of oauth connections. The browser comes back from the authorization
 * server without the user's JWT; the state binds user and server. Completes
 * on any replica, then sends the browser to the console's connect page of the
 * server (303). A bad, expired or used state is a 400.
 */
export class McpConnectionCallbackController {
  constructor(
    private readonly complete: CompleteOAuthConnection,
    private readonly connectUrl: ConnectUrl,
  ) {}

  router(): Router {
    const router = Router();
    router.get('/', (req, res) => this.callback(req, res));
    return router;
  }

  async callback(req: Request, res: Response): Promise<void> {
    const one = (name: string) => {
      const value = req.query[name];
      return typeof value === 'string' ? value : undefined;
    };
    const { serverId } = await this.complete.execute({
      callback: {
        code: one('code'),
        state: one('state'),
        iss: one('iss'),
        error: one('error'),
        errorDescription: one('error_description'),
      },
    });
    res.setHeader('Cache-Control', 'no-store');
    res.status(303).location(this.connectUrl(serverId)).end();
  }
}
