import { Request } from 'express';

/**
 * The origin a client reached keygate at (scheme and host as Express reads
 * them: a trusted proxy's forwarded ones, and a Host MCP_ALLOWED_HOSTS lets
 * through when set), against which a page keygate names by its path becomes
 * a URL the client can open. It goes back only to the client that sent it.
 */
export function requestBase(req: Request): string | undefined {
  const host = req.get('host');
  return host === undefined ? undefined : `${req.protocol}://${host}`;
}
