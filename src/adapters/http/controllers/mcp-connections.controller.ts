import { Request, Response, Router } from 'express';
import { McpConnectionUseCases } from '../../../application/use-cases/gateway/mcp-connections/mcp-connection-use-cases';
import { allowedFields } from '../dto/body-fields';
import { McpConnectionInputDto } from '../dto/mcp-connection.dto';
import { presentMcpConnection } from '../dto/mcp-connection.presenter';
import { jsonBody } from '../middleware/json-body';
import { callerOf } from './mcp-servers.controller';

type IdRequest = Request<{ id: string }>;

/**
 * /api/v1/mcp-servers/:id/connection: the caller's connection to one of their
 * servers. GET shows its state (an admin's for any user's server), POST stores
 * the caller's secret for a user_secret server (201), DELETE forgets it (204).
 * Mounted inside the servers' router, so the same authentication and the
 * same 404 for another user's server apply.
 */
export class McpConnectionsController {
  constructor(private readonly useCases: McpConnectionUseCases) {}

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
    const view = await this.useCases.connect.execute({ caller, id: req.params.id, secret });
    res.status(201).json(presentMcpConnection(view));
  }

  async disconnect(req: IdRequest, res: Response): Promise<void> {
    await this.useCases.disconnect.execute({ caller: callerOf(req, res), id: req.params.id });
    res.status(204).end();
  }
}
