import { AuditOrigin, NO_ORIGIN } from '../../../../domain/audit';
import { ConflictError, NotFoundError, ValidationError } from '../../../../domain/errors';
import { Resource } from '../../../../domain/scope';
import { ExternalTools } from '../../../ports/external-tools.port';
import { UpstreamContext } from '../../../ports/upstream-mcp.port';
import { ResourceStore } from '../../../ports/resource-store.port';
import { McpServerView } from '../mcp-servers/mcp-server-record';
import { McpServerUseCases } from '../mcp-servers/mcp-server-use-cases';
import { ToolTarget } from './authorize-tool-call.use-case';
import { runItemAction } from '../built-in/item-actions';
import { runRecordAction } from '../built-in/record-actions';
import { ANY_DATA, ResourcePolicy } from '../built-in/resource-policy';
import { parseToolCommand, ToolCommand } from '../built-in/tool-command';
import { forbidId } from '../built-in/tool-data';
import { one } from '../built-in/tool-values';
import { ToolCaller } from '../external/mcp-server-audit';
import { failed, succeeded, ToolOutcome, ToolValue } from '../tool-outcome';

export interface CallToolInput {
  userId: string;
  /** The key the call came with, for the audit trail; absent for an internal job and a user's access token. */
  keyId?: string | null;
  /** The call came with the user's OAuth access token (the trail's actor is the user). */
  byUser?: boolean;
  origin?: AuditOrigin;
  /** What AuthorizeToolCall found when it allowed these same arguments. */
  target: ToolTarget;
  arguments?: Record<string, unknown>;
  /** For an upstream tool: the client's session and, during the call, its relay. */
  upstream?: UpstreamContext;
}

/** What resource groups add to the generic record rules; a group left out takes any data and shows all of it. */
export type ResourcePolicies = Partial<Record<Resource, ResourcePolicy>>;

/**
 * Runs one tool call for a key's user. It does not authorize: a caller asks
 * AuthorizeToolCall first and hands over the target it allowed, with the same
 * arguments. A built-in tool's value is domain values for the edge to render;
 * every expected failure is an error outcome. An upstream MCP server's record
 * is created, read, changed (`approve_tools` included) and removed by the
 * McpServerUseCases the REST API calls too; get and update show its
 * `tool_pins`.
 */
export class CallTool {
  constructor(
    private readonly store: ResourceStore,
    private readonly policies: ResourcePolicies,
    private readonly external: ExternalTools,
    private readonly servers: McpServerUseCases,
  ) {}

  async execute(input: CallToolInput): Promise<ToolOutcome> {
    const { target } = input;
    if (target.kind === 'external') return this.external.run(target.tool, input.arguments, input.upstream);
    try {
      const command = parseToolCommand(target.resource, input.arguments);
      const caller: ToolCaller = {
        userId: input.userId,
        keyId: input.keyId ?? null,
        byUser: input.byUser,
        origin: input.origin ?? NO_ORIGIN,
      };
      const server = await this.onServer(caller, command);
      if (server !== null) return succeeded(server);
      const policy = this.policies[command.resource] ?? ANY_DATA;
      return succeeded(
        command.subresource === null
          ? await runRecordAction(this.store, caller.userId, command, policy)
          : await runItemAction(this.store, caller.userId, command),
      );
    } catch (error) {
      if (error instanceof ValidationError || error instanceof NotFoundError) return failed(error.message);
      if (error instanceof ConflictError) return failed(error.message);
      throw error;
    }
  }

  /** The value of an action on a server record the use-cases own; null for every other action (list, search, query, execute). */
  private async onServer(toolCaller: ToolCaller, command: ToolCommand): Promise<ToolValue | null> {
    if (command.resource !== 'mcp_servers' || command.subresource !== null) return null;
    const caller = { kind: 'key' as const, caller: toolCaller };
    const { id, data } = command;
    switch (command.action) {
      case 'create':
        forbidId(id, 'create');
        return one(await this.servers.create.execute({ caller, data }));
      case 'get':
        return withPins(await this.servers.get.execute({ caller, id }));
      case 'update':
        return withPins(await this.servers.update.execute({ caller, id, data }));
      case 'delete':
        await this.servers.remove.execute({ caller, id });
        return { kind: 'deleted', id: id! };
      default:
        return null;
    }
  }
}

/** A server record as its owner sees it: with its pinned tool definitions. */
function withPins(view: McpServerView): ToolValue {
  return { kind: 'record', as: 'record', record: view.record, pins: view.pins };
}
