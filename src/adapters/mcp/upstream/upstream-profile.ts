import { Client, DiscoverResult, FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { SERVER_INFO } from '../mcp-server.factory';

/**
 * What keygate learned of one upstream (one record version): the revision it
 * speaks and what it declared. `unknown` when it could not be learned (down,
 * refused): its contacts then take the 2025 path, which fails or works on
 * its own, as before keygate learned revisions. A modern one that also opens
 * 2025 sessions is `dual`.
 */
export type UpstreamProfile =
  | { era: 'modern'; protocolVersion: string; capabilities: Record<string, unknown>; discover: DiscoverResult; dual?: boolean }
  | { era: 'legacy'; protocolVersion: string; capabilities: Record<string, unknown> }
  | { era: 'unknown' };

export type ModernProfile = Extract<UpstreamProfile, { era: 'modern' }>;

/** Where a record's profile is cached: id and version, as its capabilities are (a record belongs to one user, so never shared). */
export function profileKey(server: { id: string; version: string }): string {
  return `profile:${server.id}@${server.version}`;
}

type ProbeOptions = { signal: AbortSignal; timeout: number };

/**
 * One probe with the SDK v2 client in `auto` mode: server/discover, and
 * initialize when the upstream shows no 2026 answer. A 2026 upstream is
 * `dual` when its discover lists a 2025 revision or, since the SDK's lists
 * only 2026 ones, when it also accepts initialize. A session an upstream
 * opened for the probe is ended with it.
 */
export async function learnProfile(server: UpstreamServer, fetch: FetchLike, options: ProbeOptions): Promise<UpstreamProfile> {
  const { client, transport } = probeClient(server, fetch, 'auto');
  try {
    await client.connect(transport, options);
    const capabilities = { ...client.getServerCapabilities() };
    const protocolVersion = client.getNegotiatedProtocolVersion() ?? '';
    const discover = client.getDiscoverResult();
    if (client.getProtocolEra() !== 'modern' || discover === undefined) return { era: 'legacy', protocolVersion, capabilities };
    const dual = discover.supportedVersions.some(isLegacyRevision) || (await opensLegacySession(server, fetch, options));
    return { era: 'modern', protocolVersion, capabilities, discover, ...(dual && { dual }) };
  } finally {
    await end(client, transport);
  }
}

/** Whether the upstream answers a 2025 initialize with a session: any failure (a 2026-only upstream's refusal, a timeout) is no. */
async function opensLegacySession(server: UpstreamServer, fetch: FetchLike, options: ProbeOptions): Promise<boolean> {
  const { client, transport } = probeClient(server, fetch, 'legacy');
  try {
    await client.connect(transport, options);
    return client.getProtocolEra() === 'legacy';
  } catch {
    return false;
  } finally {
    await end(client, transport);
  }
}

function probeClient(server: UpstreamServer, fetch: FetchLike, mode: 'auto' | 'legacy') {
  const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers }, fetch });
  return { client, transport };
}

async function end(client: Client, transport: StreamableHTTPClientTransport): Promise<void> {
  if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => undefined);
  await client.close().catch(() => undefined);
}

/** 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: every revision before 2026-07-28 opens sessions with initialize. */
function isLegacyRevision(version: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version < '2026-07-28';
}
