import { Request, Response, Router } from 'express';
import { McpConnectionUseCases } from '../../../application/use-cases/gateway/mcp-connections/mcp-connection-use-cases';
import { allowedFields } from '../dto/body-fields';
import { McpConnectionInputDto } from '../dto/mcp-connection.dto';
import { presentMcpConnection } from '../dto/mcp-connection.presenter';
import { jsonBody } from '../middleware/json-body';
import { callerOf } from './mcp-servers.controller';

type IdRequest = Request<{ id: string }>;

/** Where the authorization server sends the browser back: outside the users' JWT (app.ts mounts it before them). */
export const CONNECTION_CALLBACK_PATH = '/api/v1/mcp-servers/connections/callback';
/** The callback's absolute URL, given the origin the request reached keygate at. */
export type RedirectUri = (requestOrigin: string) => string;

/**
 * /api/v1/mcp-servers/:id/connection: the caller's connection to one of their
 * servers. GET shows its state (an admin's for any user's server), POST stores
 * the caller's secret for a user_secret server (201), or for an oauth server
 * begins an authorization (201 with the URL to send the browser to), DELETE
 * forgets it (204).
 * Mounted inside the servers' router, so the same authentication and the
 * same 404 for another user's server apply.
 */
export class McpConnectionsController {
  constructor(
    private readonly useCases: McpConnectionUseCases,
    private readonly redirectUri: RedirectUri = (origin) => origin + CONNECTION_CALLBACK_PATH,
  ) {}

  router(): Router {
    const router = Router();
    router.get('/:id/connection', (req: IdRequest, res) => this.get(req, res));
    router.post('/:id/connection', jsonBody, (req: IdRequest, res) => this.connect(req, res));
    router.delete('/:id/connection', (req: IdRequest, res) => this.disconnect(req, res));
    return router;
  }

  async get(req: IdRequest, res: Response): Promise<void> {
    res.json(presentMcpConnection(await this.useCases.get.execute({ caller: callerOf(req, res), id: req.params.id })));
  }

  async connect(req: IdRequest, res: Response): Promise<void> {
    const caller = callerOf(req, res);
    const { secret } = allowedFields(McpConnectionInputDto, req.body);
    const redirectUri = this.redirectUri(`${req.protocol}://${req.get('host') ?? 'localhost'}`);
    const result = await this.useCases.connect.execute({ caller, id: req.params.id, secret, redirectUri });
    if ('authorizationUrl' in result) res.status(201).json({ authorization_url: result.authorizationUrl });
    else res.status(201).json(presentMcpConnection(result.connected));
  }

  async disconnect(req: IdRequest, res: Response): Promise<void> {
    await this.useCases.disconnect.execute({ caller: callerOf(req, res), id: req.params.id });
    res.status(204).end();
  }
}
