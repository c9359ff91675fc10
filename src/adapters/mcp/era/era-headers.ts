import { IncomingHttpHeaders } from 'node:http';
import { EraHeaders, MODERN_REVISIONS } from './era-gate';

/** The standard headers the era gate checks, as sent; a repeated header (an array) counts as absent, and the gate answers that. */
export function eraHeadersOf(headers: IncomingHttpHeaders): EraHeaders {
  const protocolVersion = single(headers['mcp-protocol-version']);
  const method = single(headers['mcp-method']);
  const name = single(headers['mcp-name']);
  return {
    ...(protocolVersion !== undefined && { protocolVersion }),
    ...(method !== undefined && { method }),
    ...(name !== undefined && { name }),
  };
}

/** Whether MCP-Protocol-Version names a revision keygate serves statelessly: such a POST reads no session. */
export function namesModernRevision(headers: IncomingHttpHeaders): boolean {
  const value = single(headers['mcp-protocol-version']);
  return value !== undefined && MODERN_REVISIONS.includes(value.trim());
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
