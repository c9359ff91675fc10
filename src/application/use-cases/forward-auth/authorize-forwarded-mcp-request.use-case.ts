import { ForbiddenError, InsufficientScopeError, NotFoundError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { awaitsApproval } from '../../../domain/tool';
import { AuthorizeToolCall } from '../gateway/tools/authorize-tool-call.use-case';
import { changedMessage, ToolPins } from '../gateway/external/tool-pins';
import { FindServerView } from '../gateway/upstream-view/find-server-view.use-case';

export interface AuthorizeForwardedMcpRequestInput {
  /** The validated key's owner and scopes. */
  principal: { userId: string; scopes: ScopeSet; keyId?: string; keyName?: string };
  /** The server record's name the proxy gave (`?server=`), unchecked. */
  server: string;
  /** The forwarded Mcp-Method, trusted: the edge took it only from a revision whose servers check it against the body. */
  method: string;
  /** The forwarded Mcp-Name, decoded; only a tools/call reads it (the edge requires it there). */
  name?: string;
}

/**
 * Forward auth for an MCP server keygate does not proxy (GET /authz?server=):
 * the owner's record of that name must exist, and a tools/call passes only
 * as /mcp/servers/<server> would let it run: the same view and tool gate
 * (the record's tool_scopes, else mcp_servers:write, then its tool_rules), and a tool whose pinned
 * definition changed since it was approved is refused as /mcp withholds it.
 * Other methods need the record alone. An unknown server is a NotFoundError
 * whether the name is malformed, unused or another user's, as on /mcp/servers/<name>.
 */
export class AuthorizeForwardedMcpRequest {
  constructor(
    private readonly views: FindServerView,
    private readonly tools: AuthorizeToolCall,
    private readonly pins: ToolPins,
  ) {}

  async execute(input: AuthorizeForwardedMcpRequestInput): Promise<void> {
    const { principal, server } = input;
    const view = await this.views.execute({ userId: principal.userId, name: server });
    if (view === null) throw new NotFoundError('MCP server', server);
    if (input.method !== 'tools/call') return;
    // No arguments: an upstream tool's scopes depend on its name alone, so the body is not needed for the same decision.
    // The tool's rules are: those that do not read `args` decide as on /mcp, one that does refuses (argsKnown: false).
    const decision = await this.tools.execute({
      userId: principal.userId,
      scopes: principal.scopes,
      name: input.name ?? '',
      view,
      caller: { keyId: principal.keyId ?? '', keyName: principal.keyName ?? '', admin: false },
      argsKnown: false,
    });
    if (decision.kind === 'unknown') throw new NotFoundError('MCP server', server);
    if (decision.kind === 'denied') throw new InsufficientScopeError(decision.scopes);
    if (decision.kind === 'refused') throw new ForbiddenError(decision.message);
    if (decision.target.kind !== 'external') return;
    const { tool, server: record } = decision.target.tool;
    const pin = (await this.pins.view(record.id)).find((candidate) => candidate.tool === tool);
    if (awaitsApproval(pin)) throw new ForbiddenError(changedMessage(server, tool));
  }
}
