import { Actor, mayActFor } from '../../../../domain/actor';
import { NO_ORIGIN } from '../../../../domain/audit';
import { ForbiddenError } from '../../../../domain/errors';
import { parseUserId } from '../../create-key/create-key.use-case';
import { keyChanger, ServerChanger, ToolCaller } from '../external/mcp-server-audit';

/**
 * Who acts on MCP server records. A key, through the mcp_servers tool,
 * always for its own user. A user's access token, over REST, for that user,
 * or for the user `userId` names when the token is an admin's; an admin
 * naming no user reaches any user's server by its id (changerFor).
 */
export type McpServerCaller = { kind: 'key'; caller: ToolCaller } | { kind: 'user'; actor: Actor; userId?: string | null };

/** The owner whose records are read and written, and how the events name the one acting; 403 for a non-admin naming someone else. */
export function changerOf(caller: McpServerCaller): ServerChanger {
  if (caller.kind === 'key') return keyChanger(caller.caller);
  const userId = parseUserId(caller.userId, caller.actor);
  if (!mayActFor(caller.actor, userId)) throw new ForbiddenError("Only admins may manage another user's MCP servers");
  return { userId, keyId: null, actor: { type: 'user', id: caller.actor.userId }, origin: caller.actor.origin ?? NO_ORIGIN };
}

/**
 * changerOf for a request about one server, `id`: an admin who names no user
 * acts for the server's owner, as an admin reads, edits and revokes any key by
 * its id. Everyone else gets changerOf's answer, so another user's server
 * stays a NotFoundError for them.
 */
export async function changerFor(
  caller: McpServerCaller,
  id: string,
  ownerOf: (id: string) => Promise<string | null>,
): Promise<ServerChanger> {
  if (caller.kind === 'user' && caller.actor.isAdmin && (caller.userId === undefined || caller.userId === null)) {
    const owner = await ownerOf(id);
    if (owner !== null) return changerOf({ ...caller, userId: owner });
  }
  return changerOf(caller);
}
