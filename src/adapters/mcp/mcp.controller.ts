import { Request, Response, Router } from 'express';
import { FilterTools } from '../../application/use-cases/filter-tools/filter-tools.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { apiKeyAuth, principalOf } from '../http/middleware/api-key-auth';
import { jsonBody } from '../http/middleware/json-body';

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: string | number | null;
  method: string;
  params?: unknown;
}

/** POST /mcp: JSON-RPC 2.0 behind API-key validation; the key's scopes decide the tools. */
export class McpController {
  constructor(
    private readonly validateKey: ValidateKey,
    private readonly filterTools: FilterTools,
  ) {}

  router(): Router {
    const router = Router();
    router.post('/mcp', apiKeyAuth(this.validateKey), jsonBody, (req, res) => this.handle(req, res));
    return router;
  }

  handle(req: Request, res: Response): void {
    const message = req.body as Partial<JsonRpcRequest> | undefined;
    if (!isRequest(message)) {
      res.json(rpcError(null, -32600, 'Invalid Request: expected a JSON-RPC 2.0 request object'));
      return;
    }
    if (message.method !== 'tools/list') {
      res.json(rpcError(message.id, -32601, `Method not found: ${message.method}`));
      return;
    }
    const tools = this.filterTools.execute({ scopes: principalOf(res.locals).scopes });
    res.json({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        tools: tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema })),
      },
    });
  }
}

function isRequest(value: unknown): value is JsonRpcRequest {
  const m = value as Partial<JsonRpcRequest> | null;
  return (
    typeof m === 'object' && m !== null && !Array.isArray(m) && m.jsonrpc === '2.0' &&
    typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
  );
}

function rpcError(id: JsonRpcRequest['id'] | undefined, code: number, message: string) {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}
