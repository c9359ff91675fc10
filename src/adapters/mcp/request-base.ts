import { Request } from 'express';

/**
 * The origin a client reached keygate at (the proxy's scheme when trusted,
 * and the Host the edge's Host check let through), against which a page
 * keygate names by its path becomes a URL the client can open.
 */
export function requestBase(req: Request): string | undefined {
  const host = req.get('host');
  return host === undefined ? undefined : `${req.protocol}://${host}`;
}
