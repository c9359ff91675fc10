import { AuditOrigin, NO_ORIGIN } from '../../../domain/audit';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors';
import { Resource } from '../../../domain/scope';
import { Clock } from '../../ports/clock.port';
import { ToolPinStore } from '../../ports/tool-pin-store.port';
import { ExternalTools } from '../../ports/external-tools.port';
import { UpstreamContext } from '../../ports/upstream-mcp.port';
import { ResourceStore } from '../../ports/resource-store.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { ToolTarget } from './authorize-tool-call.use-case';
import { runItemAction } from './built-in/item-actions';
import { runRecordAction } from './built-in/record-actions';
import { ANY_DATA, ResourcePolicy } from './built-in/resource-policy';
import { parseToolCommand, ToolCommand } from './built-in/tool-command';
import { serverEvent, serverEventOf, ToolCaller } from './external/mcp-server-audit';
import { ToolPins } from './external/tool-pins';
import { failed, succeeded, ToolOutcome, ToolValue } from './tool-outcome';

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
 * every expected failure is an error outcome. Registering, changing or
 * removing an upstream MCP server commits with its audit event; an update's
 * `approve_tools` approves pinned tool definitions in the same transaction,
 * and get and update show the server's `tool_pins`.
 */
export class CallTool {
  constructor(
    private readonly store: ResourceStore,
    private readonly policies: ResourcePolicies,
    private readonly external: ExternalTools,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly pins: ToolPins,
  ) {}

  async execute(input: CallToolInput): Promise<ToolOutcome> {
    const { target } = input;
    if (target.kind === 'external') return this.external.run(target.tool, input.arguments, input.upstream);
    try {
      const command = parseToolCommand(target.resource, input.arguments);
      const caller: ToolCaller = { userId: input.userId, keyId: input.keyId ?? null, byUser: input.byUser, origin: input.origin ?? NO_ORIGIN };
      if (serverEventOf(command)) return succeeded(await this.changeServer(caller, command));
      const value = await this.run(this.store, caller, command);
      return succeeded(showsPins(command) ? await this.withPins(value) : value);
    } catch (error) {
      if (error instanceof ValidationError || error instanceof NotFoundError) return failed(error.message);
      if (error instanceof ConflictError) return failed(error.message);
      throw error;
    }
  }

  private run(store: ResourceStore, caller: ToolCaller, command: ToolCommand): Promise<ToolValue> {
    const policy = this.policies[command.resource] ?? ANY_DATA;
    return command.subresource === null
      ? runRecordAction(store, caller.userId, command, policy)
      : runItemAction(store, caller.userId, command);
  }

  private changeServer(caller: ToolCaller, command: ToolCommand): Promise<ToolValue> {
    const action = serverEventOf(command)!;
    const approval = command.action === 'update' ? this.pins.approvalIn(command.data) : { data: command.data, approvals: null };
    return this.work.run(async ({ records, audit, pins }) => {
      // A deleted server's name is read before it goes, for the event.
      const before = command.action === 'delete' && command.id !== null
        ? await records.find(caller.userId, { resource: command.resource, parentId: null, subresource: null }, command.id)
        : null;
      // The update bumps the record's version even when only approve_tools came, which every replica's listing cache keys on.
      const value = await this.run(records, caller, { ...command, data: approval.data });
      const server = value.kind === 'record' ? value.record : before;
      if (server) {
        const changed = command.action === 'update' ? [...Object.keys(approval.data), ...(approval.approvals ? ['approve_tools'] : [])].sort() : undefined;
        const event = serverEvent(action, caller, server, this.clock.now(), changed);
        if (approval.approvals !== null) {
          const approved = await this.pins.approve(pins, server.id, approval.approvals);
          event.details.approved_tools = approved.map((pin) => ({ tool: pin.tool, sha256: pin.sha256 }));
        }
        await audit.append([event]);
      }
      return command.action === 'update' ? this.withPins(value, pins) : value;
    });
  }

  /** A server record as its owner sees it: with its pinned tool definitions. */
  private async withPins(value: ToolValue, store?: ToolPinStore): Promise<ToolValue> {
    if (value.kind !== 'record') return value;
    return { ...value, pins: await this.pins.view(value.record.id, store) };
  }
}

function showsPins(command: ToolCommand): boolean {
  return command.resource === 'mcp_servers' && command.subresource === null && command.action === 'get';
}
