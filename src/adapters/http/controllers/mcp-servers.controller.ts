import { Request, Response, Router } from 'express';
import { McpServerCaller } from '../../../application/use-cases/gateway/mcp-servers/mcp-server-caller';
import { McpServerUseCases } from '../../../application/use-cases/gateway/mcp-servers/mcp-server-use-cases';
import { ValidationError } from '../../../domain/errors';
import { unchecked } from '../../unchecked';
import { allowedFields } from '../dto/body-fields';
import { ApproveToolsDto, McpServerInputDto, McpServerUpdateDto } from '../dto/mcp-server.dto';
import { presentMcpServer } from '../dto/mcp-server.presenter';
import { actorOf } from '../../edge/access-token-auth';
import { jsonBody } from '../middleware/json-body';
import { bodyFieldsOf } from './mcp-server-fields';

type IdRequest = Request<{ id: string }>;

/**
 * /api/v1/mcp-servers: the upstream MCP servers the mcp_servers tool manages,
 * by the same use-cases. A user's token acts for that user; an admin's, with
 * `?user_id=`, for the user named (a non-admin naming another user is 403),
 * and without it reaches any user's server by its id, as with keys. Unknown
 * ids and, for a non-admin, other users' servers are both 404. Authentication
 * runs before this router.
 */
export class McpServersController {
  constructor(
    private readonly useCases: McpServerUseCases,
    /** The routes of a server's connection, under the same authentication. */
    private readonly connections?: { router(): Router },
  ) {}

  router(): Router {
    const router = Router();
    router.get('/', (req, res) => this.list(req, res));
    router.post('/', jsonBody, (req, res) => this.create(req, res));
    router.get('/:id', (req: IdRequest, res) => this.get(req, res));
    router.patch('/:id', jsonBody, (req: IdRequest, res) => this.update(req, res));
    router.delete('/:id', (req: IdRequest, res) => this.remove(req, res));
    router.post('/:id/approve-tools', jsonBody, (req: IdRequest, res) => this.approve(req, res));
    if (this.connections) router.use(this.connections.router());
    return router;
  }

  async list(req: Request, res: Response): Promise<void> {
    const caller = callerOf(req, res, ['limit', 'cursor']);
    const page = await this.useCases.list.execute({ caller, limit: unchecked(req.query.limit), cursor: unchecked(req.query.cursor) });
    if (page.nextCursor !== null) res.setHeader('Link', `<${nextPage(req, page.nextCursor)}>; rel="next"`);
    res.json(page.servers.map(presentMcpServer));
  }

  async create(req: Request, res: Response): Promise<void> {
    const caller = callerOf(req, res);
    const data = given(allowedFields(McpServerInputDto, req.body));
    const record = await bodyFieldsOf(() => this.useCases.create.execute({ caller, data, checkAddress: true }));
    res.status(201).setHeader('Location', `${req.baseUrl}/${record.id}`);
    res.json(presentMcpServer({ record, pins: [] }));
  }

  async get(req: IdRequest, res: Response): Promise<void> {
    res.json(presentMcpServer(await this.useCases.get.execute({ caller: callerOf(req, res), id: req.params.id })));
  }

  async update(req: IdRequest, res: Response): Promise<void> {
    const caller = callerOf(req, res);
    const data = given(allowedFields(McpServerUpdateDto, req.body));
    if (Object.keys(data).length === 0) {
      throw ValidationError.single(
        'body',
        'name, url, headers, auth, tool_scopes, tool_rules, resource_scopes, prompt_scopes or approve_tools is required',
      );
    }
    const view = await bodyFieldsOf(() => this.useCases.update.execute({ caller, id: req.params.id, data, checkAddress: true }));
    res.json(presentMcpServer(view));
  }

  async remove(req: IdRequest, res: Response): Promise<void> {
    await this.useCases.remove.execute({ caller: callerOf(req, res), id: req.params.id });
    res.status(204).end();
  }

  /** The changed definitions of these tools approved, as PATCH with approve_tools does it (one transaction, mcp_server.updated). */
  async approve(req: IdRequest, res: Response): Promise<void> {
    const caller = callerOf(req, res);
    const body = allowedFields(ApproveToolsDto, req.body);
    const view = await bodyFieldsOf(
      () => this.useCases.update.execute({ caller, id: req.params.id, data: { approve_tools: body.tools } }),
      'tools',
    );
    res.json(presentMcpServer(view));
  }
}

/** The token's user, or the one an admin names with ?user_id=; any other query parameter is a 400. */
export function callerOf(req: Request, res: Response, more: readonly string[] = []): McpServerCaller {
  const unknown = Object.keys(req.query).find((name) => name !== 'user_id' && !more.includes(name));
  if (unknown !== undefined) throw ValidationError.single(unknown, 'is not a known query parameter');
  return { kind: 'user', actor: actorOf(res.locals), userId: unchecked(req.query.user_id) };
}

/** The fields the body sent: a DTO also holds its other declared fields, as undefined (JSON has no undefined, so nothing sent is lost). */
function given(dto: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(dto).filter(([, value]) => value !== undefined));
}

function nextPage(req: Request, cursor: string): string {
  const query = new URLSearchParams();
  for (const name of ['user_id', 'limit']) if (typeof req.query[name] === 'string') query.set(name, req.query[name]);
  query.set('cursor', cursor);
  return `${req.baseUrl}?${query.toString()}`;
}
