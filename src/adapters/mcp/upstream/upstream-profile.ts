import { Client, DiscoverResult, FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { SERVER_INFO } from '../mcp-server.factory';

/**
 * What keygate learned of one upstream (one record version): the revision it
 * speaks and what it declared. `unknown` when it could not be learned (down,
 * refused): its contacts then take the 2025 path, which fails or works on
 * its own, as before keygate learned revisions.
 */
export type UpstreamProfile =
  | { era: 'modern'; protocolVersion: string; capabilities: Record<string, unknown>; discover: DiscoverResult }
  | { era: 'legacy'; protocolVersion: string; capabilities: Record<string, unknown> }
  | { era: 'unknown' };

export type ModernProfile = Extract<UpstreamProfile, { era: 'modern' }>;

/** Where a record's profile is cached: id and version, as its capabilities are (a record belongs to one user, so never shared). */
export function profileKey(server: { id: string; version: string }): string {
  return `profile:${server.id}@${server.version}`;
}

/**
 * One probe with the SDK v2 client in `auto` mode: server/discover, and
 * initialize when the upstream shows no 2026 answer. A session a 2025
 * upstream opened for the probe is ended with it.
 */
export async function learnProfile(server: UpstreamServer, fetch: FetchLike, options: { signal: AbortSignal; timeout: number }): Promise<UpstreamProfile> {
  const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch });
  try {
    await client.connect(transport, options);
    const capabilities = { ...client.getServerCapabilities() };
    const protocolVersion = client.getNegotiatedProtocolVersion() ?? '';
    const discover = client.getDiscoverResult();
    if (client.getProtocolEra() === 'modern' && discover !== undefined) return { era: 'modern', protocolVersion, capabilities, discover };
    return { era: 'legacy', protocolVersion, capabilities };
  } finally {
    if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
