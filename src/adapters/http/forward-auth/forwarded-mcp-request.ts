import { Request } from 'express';
import { ValidationError } from '../../../domain/errors';
import { decodeMcpName } from '../../edge/mcp-name-header';

export const MCP_SERVER_HEADER = 'x-keygate-mcp-server';

/**
 * The first MCP revision whose servers must check Mcp-Method and Mcp-Name
 * against the body. Revisions are dates, so a later one compares greater.
 */
export const FIRST_VALIDATING_REVISION = '2026-07-28';
const REVISION = /^\d{4}-\d{2}-\d{2}$/;
/** A method name as one header value: printable ASCII without spaces or commas, so a repeated header (joined ", ") never reads as one. */
const METHOD = /^[\x21-\x2b\x2d-\x7e]+$/;

/** What /authz reads of a forwarded MCP request: its headers only, never its body. */
export interface ForwardedMcpRequest {
  server: string;
  method: string;
  /** Mcp-Name decoded; present for every tools/call. */
  name?: string;
}

/**
 * The MCP request the proxy forwards, when `?server=` or X-Keygate-Mcp-Server
 * names the key owner's server record; null when neither does (then /authz
 * is what it always was). Both present and different is a 400, as for the
 * required scope: a client must not swap the proxy's server for another.
 *
 * The Mcp-Method and Mcp-Name headers mirror the body, which /authz never
 * reads. They are worth trusting only where the server behind the proxy
 * refuses a request whose headers and body disagree: from 2026-07-28 on. So,
 * as the spec asks of an intermediary, a missing or older
 * MCP-Protocol-Version is a 400 rather than a decision on unchecked headers,
 * and so is a missing Mcp-Method, or a tools/call without a (decodable) Mcp-Name.
 */
export function forwardedMcpRequestOf(req: Request): ForwardedMcpRequest | null {
  const fromQuery = single(req.query.server, 'server');
  const fromHeader = single(req.headers[MCP_SERVER_HEADER], 'X-Keygate-Mcp-Server');
  if (fromQuery !== undefined && fromHeader !== undefined && fromQuery !== fromHeader) {
    throw ValidationError.single('server', 'the query parameter and the X-Keygate-Mcp-Server header name different servers');
  }
  const server = fromQuery ?? fromHeader;
  if (server === undefined) return null;

  const version = req.headers['mcp-protocol-version'];
  if (typeof version !== 'string' || !REVISION.test(version) || version < FIRST_VALIDATING_REVISION) {
    throw ValidationError.single(
      'MCP-Protocol-Version',
      `must be ${FIRST_VALIDATING_REVISION} or later, whose servers check the Mcp-* headers against the body`,
    );
  }
  const method = req.headers['mcp-method'];
  if (typeof method !== 'string' || !METHOD.test(method)) throw ValidationError.single('Mcp-Method', "must name the request's method");
  if (method !== 'tools/call') return { server, method };
  const header = req.headers['mcp-name'];
  const name = typeof header === 'string' ? decodeMcpName(header) : undefined;
  if (name === undefined || name === '') throw ValidationError.single('Mcp-Name', 'a tools/call must name its tool');
  return { server, method, name };
}

function single(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  // Repeated query parameters arrive as an array; a repeated header is joined with ", ", which no server name holds.
  if (typeof value !== 'string') throw ValidationError.single(field, 'must name exactly one MCP server');
  if (value === '') throw ValidationError.single(field, 'must name an MCP server; leave it out for a plain /authz check');
  return value;
}
