import { Request, Response, Router } from 'express';
import { McpConnectionUseCases } from '../../../application/use-cases/gateway/mcp-connections/mcp-connection-use-cases';
import { allowedFields } from '../dto/body-fields';
import { McpConnectionCallbackDto, McpConnectionInputDto } from '../dto/mcp-connection.dto';
import { presentMcpConnection } from '../dto/mcp-connection.presenter';
import { jsonBody } from '../middleware/json-body';
import { callerOf } from './mcp-servers.controller';

type IdRequest = Request<{ id: string }>;

/**
 * /api/v1/mcp-servers/:id/connection: the caller's connection to one of their
 * servers. GET shows its state (an admin's for any user's server), POST stores
 * the caller's secret for a user_secret server (201), or for an oauth server
 * begins an authorization (201 with the URL to send the browser to), DELETE
 * forgets it (204). POST /connections/callback completes an oauth
 * authorization with the query the console's callback page got (201 with
 * the connection), as the user whose JWT comes with it.
 * Mounted inside the servers' router, so the same authentication and the
 * same 404 for another user's server apply.
 */
export class McpConnectionsController {
  constructor(private readonly useCases: McpConnectionUseCases) {}

  router(): Router {
    const router = Router();
    router.post('/connections/callback', jsonBody, (req, res) => this.complete(req, res));
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
    const result = await this.useCases.connect.execute({ caller, id: req.params.id, secret });
    if ('authorizationUrl' in result) res.status(201).json({ authorization_url: result.authorizationUrl });
    else res.status(201).json(presentMcpConnection(result.connected));
  }

  async complete(req: Request, res: Response): Promise<void> {
    const caller = callerOf(req, res);
    const body = allowedFields(McpConnectionCallbackDto, req.body);
    const { serverId } = await this.useCases.complete.execute({
      caller,
      callback: { state: body.state, code: body.code, iss: body.iss, error: body.error, errorDescription: body.error_description },
    });
    res.status(201).json(presentMcpConnection(await this.useCases.get.execute({ caller, id: serverId })));
  }

  async disconnect(req: IdRequest, res: Response): Promise<void> {
    await this.useCases.disconnect.execute({ caller: callerOf(req, res), id: req.params.id });
    res.status(204).end();
  }
}
