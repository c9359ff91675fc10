import { Actor, mayActFor } from '../../../domain/actor';
import { NO_ORIGIN } from '../../../domain/audit';
import { ForbiddenError } from '../../../domain/errors';
import { parseUserId } from '../create-key/create-key.use-case';
import { keyChanger, ServerChanger, ToolCaller } from '../tools/external/mcp-server-audit';

/**
 * Who acts on MCP server records. A key, through the mcp_servers tool,
 * always for its own user. A user's access token, over REST, for that user,
 * or for the user `userId` names when the token is an admin's.
 */
export type McpServerCaller =
  | { kind: 'key'; caller: ToolCaller }
  | { kind: 'user'; actor: Actor; userId?: string | null };

/** The owner whose records are read and written, and how the events name the one acting; 403 for a non-admin naming someone else. */
export function changerOf(caller: McpServerCaller): ServerChanger {
  if (caller.kind === 'key') return keyChanger(caller.caller);
  const userId = parseUserId(caller.userId, caller.actor);
  if (!mayActFor(caller.actor, userId)) throw new ForbiddenError("Only admins may manage another user's MCP servers");
  return { userId, keyId: null, actor: { type: 'user', id: caller.actor.userId }, origin: caller.actor.origin ?? NO_ORIGIN };
}
