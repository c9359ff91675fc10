import { AuditAction, AuditActor, AuditOrigin, AuditRecord, AuditValue, NO_ORIGIN } from '../../../../domain/audit';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ToolPin } from '../../../../domain/tool';
import { auditEvent, callerActor } from '../../actor-event';
import { ToolCommand } from '../built-in/tool-command';

/** Who asked for a tool call: the key's owner and the key, with the request behind it. */
export interface ToolCaller {
  userId: string;
  /** Null for an internal job calling in-process (the event's actor is then `system`) and for a user's access token. */
  keyId: string | null;
  /** The call came with the user's own OAuth access token, no key: the actor is the user. */
  byUser?: boolean;
  origin: AuditOrigin;
}

/** Who changes a server, as its events name them: the owner, the key if one was used, and the actor (a key, a user's JWT, or the system). */
export interface ServerChanger {
  /** The server's owner: the event concerns them. */
  userId: string;
  keyId: string | null;
  actor: AuditActor;
  origin: AuditOrigin;
}

/** A tool call's changer: the key, the user behind an OAuth access token, or the system (an internal job without a key). */
export function keyChanger(caller: ToolCaller): ServerChanger {
  return { userId: caller.userId, keyId: caller.keyId, actor: callerActor(caller), origin: caller.origin };
}

const SERVER_EVENTS: Partial<Record<ToolCommand['action'], AuditAction>> = {
  create: 'mcp_server.created',
  update: 'mcp_server.updated',
  delete: 'mcp_server.deleted',
};

/** The lifecycle event a built-in call records, if it registers, changes or removes an upstream MCP server. */
export function serverEventOf(command: ToolCommand): AuditAction | null {
  if (command.resource !== 'mcp_servers' || command.subresource !== null) return null;
  return SERVER_EVENTS[command.action] ?? null;
}

/**
 * What the trail says about a server: its name and the origin of its URL.
 * Never header values, and not the URL's path or query either, which can
 * carry a token.
 */
export function serverEvent(action: AuditAction, caller: ServerChanger, server: ResourceRecord, at: Date, changed?: string[]): AuditRecord {
  const details: { [field: string]: AuditValue } = {
    name: typeof server.data.name === 'string' ? server.data.name : null,
    url_origin: originOf(server.data.url),
  };
  if (changed) details.changed = changed;
  return auditEvent(
    action,
    caller.actor,
    { userId: caller.userId, keyId: caller.keyId, target: { type: 'mcp_server', id: server.id } },
    caller.origin,
    at,
    details,
  );
}

function originOf(url: unknown): string | null {
  if (typeof url !== 'string' || !URL.canParse(url)) return null;
  const { origin } = new URL(url);
  return origin === 'null' ? null : origin;
}

/**
 * An upstream served a definition of a pinned tool other than the approved
 * one. keygate noticed it while listing, for no caller in particular: the
 * actor is the system, the user the server's owner.
 */
export function toolChangedEvent(server: ResourceRecord, pin: ToolPin, at: Date): AuditRecord {
  return auditEvent(
    'mcp_server.tool_changed',
    { type: 'system', id: null },
    { userId: server.ownerId, target: { type: 'mcp_server', id: server.id } },
    NO_ORIGIN,
    at,
    {
      name: typeof server.data.name === 'string' ? server.data.name : null,
      tool: pin.tool,
      approved_sha256: pin.sha256,
      new_sha256: pin.seenSha256,
    },
  );
}
