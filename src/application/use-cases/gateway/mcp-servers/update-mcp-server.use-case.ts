import { NotFoundError, ValidationError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Clock } from '../../../ports/clock.port';
import { ResourceStore } from '../../../ports/resource-store.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { UpstreamAddressCheck } from '../../../ports/upstream-address-check.port';
import { storable } from '../built-in/data-limits';
import { ResourcePolicy } from '../built-in/resource-policy';
import { isObject } from '../built-in/tool-command';
import { MASK } from '../external/mcp-server-policy';
import { serverEvent } from '../external/mcp-server-audit';
import { ToolPins } from '../external/tool-pins';
import { SERVERS } from '../external/upstream-servers';
import { keepsConnections } from '../mcp-connections/connection-scope';
import { connectionEvent } from '../mcp-connections/mcp-connection-audit';
import { refuseAddress } from './address-refusal';
import { changerFor, McpServerCaller } from './mcp-server-caller';
import { McpServerView, serverData, serverIdOf, shown } from './mcp-server-record';

export interface UpdateMcpServerInput {
  caller: McpServerCaller;
  id: string | null;
  /**
   * Fields to replace (the policy's merge: masked header values keep the
   * stored ones, and a url moved to another origin drops them), and
   * `approve_tools` to approve pinned definitions, which is never stored.
   */
  data: Record<string, unknown>;
  /** As CreateMcpServerInput's: a new url's host is checked before anything is written. */
  checkAddress?: boolean;
}

/**
 * Changes a server and approves its pinned tools in one transaction with
 * `mcp_server.updated`: a refused field or approval writes nothing. A change
 * of the url's origin or of the auth type forgets users' connections to it
 * (`mcp_connection.revoked` each), as a moved url drops the header values. The
 * record's version moves even when only approve_tools came, because every
 * replica's listing cache keys on it (and hears of it by NOTIFY).
 */
export class UpdateMcpServer {
  constructor(
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly policy: ResourcePolicy,
    private readonly pins: ToolPins,
    private readonly addresses: UpstreamAddressCheck,
  ) {}

  async execute(input: UpdateMcpServerInput): Promise<McpServerView> {
    const { data, approvals } = this.pins.approvalIn(serverData(input.data));
    const id = serverIdOf(input.id, 'update');
    const changer = await changerFor(input.caller, id, (server) => this.work.run(({ records }) => records.ownerOf(SERVERS, server)));
    if (input.checkAddress && data.url !== undefined) {
      // Every other answer first (404, a bad field), so only a valid change waits on DNS, and never inside the transaction.
      await this.work.run(({ records }) => this.merged(records, changer.userId, id, data));
      await refuseAddress(this.addresses, data.url);
    }
    return this.work.run(async ({ records, audit, pins, connections }) => {
      const { stored, next } = await this.merged(records, changer.userId, id, data);
      const updated = await records.update(changer.userId, SERVERS, id, next);
      if (!updated) throw new NotFoundError('mcp_servers', id);
      const record = shown(updated, this.policy);
      const at = this.clock.now();
      const changed = [...Object.keys(data), ...(approvals ? ['approve_tools'] : [])].sort();
      const event = serverEvent('mcp_server.updated', changer, record, at, changed);
      if (approvals !== null) {
        const approved = await this.pins.approve(pins, id, approvals);
        event.details.approved_tools = approved.map((pin) => ({ tool: pin.tool, sha256: pin.sha256 }));
      }
      // Users' secrets were given for this server where it was, as it authenticated: they never follow it elsewhere.
      const revoked = keepsConnections(stored.data, next) ? [] : await connections.removeAllOf(id);
      await audit.append([
        event,
        ...revoked.map((gone) => connectionEvent('mcp_connection.revoked', { ...changer, userId: gone.userId }, updated, at)),
      ]);
      return { record, pins: await this.pins.view(id, pins) };
    });
  }

  /** The record's data with the change merged in, as the policy would store it. */
  private async merged(
    records: ResourceStore,
    ownerId: string,
    id: string,
    data: Record<string, unknown>,
  ): Promise<{ stored: ResourceRecord; next: Record<string, unknown> }> {
    const stored = await records.find(ownerId, SERVERS, id);
    if (!stored) throw new NotFoundError('mcp_servers', id);
    // Its header values did not decrypt and are not in stored.data: an update must restate them, or it would drop them unseen.
    if (stored.unreadableSecrets && !(isObject(data.headers) && !Object.values(data.headers).includes(MASK))) {
      throw ValidationError.single(
        'data.headers',
        'the stored header values do not decrypt: send every header again with its value ({} for none)',
      );
    }
    // The same for a client secret: kept auth would lose it unseen.
    if (stored.unreadableSecrets && isObject(stored.data.auth) && 'client_id' in stored.data.auth && !restated(data.auth)) {
      throw ValidationError.single(
        'data.auth',
        'the stored client secret does not decrypt: send auth again with its client_secret, if any',
      );
    }
    return { stored, next: storable(this.policy.check(this.policy.merge(stored.data, data))) };
  }
}

function restated(auth: unknown): boolean {
  return isObject(auth) && auth.client_secret !== MASK;
}
