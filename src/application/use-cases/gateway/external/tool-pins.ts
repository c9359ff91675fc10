import { clip, FieldError, ValidationError } from '../../../../domain/errors';
import { withoutSecrets } from '../../../../domain/resource/without-secrets';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import {
  definitionFrom,
  hasChanges,
  isApproved,
  MAX_PINNED_NAME_LENGTH,
  PinApproval,
  pinChanges,
  pinnedText,
  ServedDefinition,
  ToolPin,
} from '../../../../domain/tool';
import { Clock } from '../../../ports/clock.port';
import { ContentDigest } from '../../../ports/content-digest.port';
import { ToolPinStore } from '../../../ports/tool-pin-store.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { UpstreamTool } from '../../../ports/upstream-mcp.port';
import { toolChangedEvent } from './mcp-server-audit';
import { approvalOf, byTool, refuseUnheld } from './pin-approvals';

/** A listing after its pins were checked: the tools offered, and why each other one is not. */
export interface PinnedTools {
  served: UpstreamTool[];
  withheld: Map<string, string>;
}

/**
 * Pinned upstream tool definitions (the rug-pull defence). The first
 * definition of a tool keygate sees is approved; a later different one is
 * withheld until the server's owner approves it, and recorded once as
 * `mcp_server.tool_changed`. A server holds at most `maxPins` pins
 * (MCP_UPSTREAM_MAX_TOOLS, the most one listing may name); a tool past them
 * is withheld, since it cannot be pinned. Each pin keeps the approved
 * definition's text, taken from a listing that served it (never another
 * definition's) and dropped by one that no longer names the tool, for
 * `approvedTools`; never one that holds a credential the listing carried
 * (an upstream echoing it), which would then lie in the table unsealed. Only a listing load (bounded by the
 * listing cache) writes pins, and only when something is new (a text not
 * kept yet counts).
 */
export class ToolPins {
  constructor(
    private readonly pins: ToolPinStore,
    private readonly work: UnitOfWork,
    private readonly digest: ContentDigest,
    private readonly clock: Clock,
    readonly maxPins: number,
  ) {}

  /** `secrets`: the credentials the listing carried (header values, the caller's own); a text holding one is not kept. */
  async review(server: ResourceRecord, tools: readonly UpstreamTool[], secrets: readonly string[] = []): Promise<PinnedTools> {
    const name = server.data.name as string;
    const withheld = new Map<string, string>();
    const hashed: { tool: UpstreamTool; sha256: string; text: string }[] = [];
    for (const tool of tools) {
      const text = tool.name.length <= MAX_PINNED_NAME_LENGTH ? pinnedText(tool) : null;
      if (text === null)
        withheld.set(
          tool.name,
          `The tool ${clip(tool.name, MAX_PINNED_NAME_LENGTH)} of the MCP server ${name} cannot be pinned (a name over ${MAX_PINNED_NAME_LENGTH} characters or a definition nested too deep), so keygate does not offer it`,
        );
      else hashed.push({ tool, sha256: this.digest.sha256(text), text });
    }
    const served = hashed.map(({ tool, sha256, text }) => ({
      tool: tool.name,
      sha256,
      ...(withoutSecrets(text, secrets) === text && { text }),
    }));
    let pins = byTool(await this.pins.list(server.id));
    if (hasChanges(pinChanges(pins, served))) pins = byTool(await this.record(server, served));
    const offered: UpstreamTool[] = [];
    for (const { tool, sha256 } of hashed) {
      const pin = pins.get(tool.name);
      if (isApproved(pin, sha256)) offered.push(tool);
      else if (pin !== undefined) withheld.set(tool.name, changedMessage(name, tool.name));
      else
        withheld.set(
          tool.name,
          `The MCP server ${name} already has ${this.maxPins} pinned tool definitions (MCP_UPSTREAM_MAX_TOOLS), so keygate cannot pin and offer ${tool.name}`,
        );
    }
    return { served: offered, withheld };
  }

  /**
   * The server's approved definitions as kept with their pins, by name: what
   * its tools/list shows a user who has no connection to it, without asking
   * the server. A pin with no text kept (made before keygate kept them, or
   * approved since its last listing) shows nothing; a changed one shows the
   * definition approved, never the one withheld. A text is shown only while
   * it hashes to the pin's sha256 and parses as the tool it names.
   */
  async approvedTools(server: ResourceRecord): Promise<UpstreamTool[]> {
    const tools: UpstreamTool[] = [];
    for (const { tool, sha256, text } of await this.pins.definitions(server.id)) {
      if (this.digest.sha256(text) !== sha256) continue;
      const definition = definitionFrom(text);
      if (definition !== null && definition.name === tool) tools.push(definition);
    }
    return tools;
  }

  /** The server's pins, for its owner to see on the record; `store` is a transaction's when there is one. */
  view(serverId: string, store: ToolPinStore = this.pins): Promise<ToolPin[]> {
    return store.list(serverId);
  }

  /**
   * Approves the last seen definitions within a transaction's `store`. A name
   * without a pin, or a sha256 other than the one seen, is a ValidationError
   * (the update then writes nothing); an approved one stays as it is, so a
   * retried approval succeeds. The pins are checked again as the write left
   * them: a replica may have seen a newer definition after the read, and the
   * store then approved nothing for that entry.
   */
  async approve(store: ToolPinStore, serverId: string, approvals: readonly PinApproval[]): Promise<ToolPin[]> {
    refuseUnheld(byTool(await store.list(serverId)), approvals);
    const approved = await store.approve(serverId, approvals);
    refuseUnheld(byTool(approved), approvals);
    return approved;
  }

  /**
   * Parses an update's `approve_tools`: an instruction, never stored with the
   * record. Each entry is a tool name, or `{name, sha256}` to approve only
   * the definition the owner inspected. `tool_pins` (and its truncation
   * marks) is what get shows, never stored either: a client that sends back
   * the data it read has it ignored.
   */
  approvalIn(data: Record<string, unknown>): { data: Record<string, unknown>; approvals: PinApproval[] | null } {
    const { approve_tools: entries, tool_pins: _shown, tool_pins_truncated: _cut, tool_pins_total: _total, ...rest } = data;
    if (!Object.hasOwn(data, 'approve_tools')) return { data: rest, approvals: null };
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > this.maxPins) {
      throw ValidationError.single('data.approve_tools', `must be a list of 1 to ${this.maxPins} tool names`);
    }
    const errors: FieldError[] = [];
    const approvals: PinApproval[] = [];
    entries.forEach((entry, i) => {
      const approval = approvalOf(entry);
      if (approval !== null) approvals.push(approval);
      else
        errors.push({
          field: `data.approve_tools[${i}]`,
          message: `must be a tool name of 1 to ${MAX_PINNED_NAME_LENGTH} characters, or {"name": <tool name>, "sha256": <64 hex digits>}`,
        });
    });
    if (errors.length > 0) throw new ValidationError(errors);
    return { data: rest, approvals };
  }

  /** One transaction: pins written, changes noted and their events appended together; the pins as they then are. */
  private record(server: ResourceRecord, served: ServedDefinition[]): Promise<ToolPin[]> {
    return this.work.run(async ({ pins, audit }) => {
      // Read again inside: another replica may have pinned or noted these since; the store's writes are conditional as well.
      const changes = pinChanges(byTool(await pins.list(server.id)), served);
      await pins.pinFirst(server.id, changes.first, this.maxPins);
      const noticed = await pins.markChanged(server.id, changes.changed);
      await pins.restore(server.id, changes.restored);
      await pins.describe(server.id, changes.described);
      await pins.forgetTexts(server.id, changes.gone);
      if (noticed.length > 0) {
        const at = this.clock.now();
        await audit.append(noticed.map((pin) => toolChangedEvent(server, pin, at)));
      }
      return pins.list(server.id);
    });
  }
}

export function changedMessage(server: string, tool: string): string {
  return `The definition of the tool ${tool} on the MCP server ${server} changed since it was approved; it is withheld until the server's owner approves it (mcp_servers update with approve_tools)`;
}
