import { DataSource } from 'typeorm';
import { ResourceSubscriptionStore, SubscribeOutcome } from '../../../application/ports/resource-subscription-store.port';

/** A subscription was added to a session: payload its internal id, for the replica holding its stream. */
export const SUBSCRIPTIONS_CHANNEL = 'keygate_mcp_subscriptions';
/** The holder of a session's stream listens to one of its upstreams: payload `<session id> <server id>`, for the replica that asked. */
export const LISTENING_CHANNEL = 'keygate_mcp_upstream_listening';

/** keygate's session with one upstream, as a stream of that upstream's own notifications needs it. */
export interface HeldStreamTarget {
  serverId: string;
  upstreamSessionId: string;
  protocolVersion: string;
}

/** mcp_resource_subscriptions (migration 1763900000013), and the held upstream sessions a session's stream listens to. */
export class PostgresResourceSubscriptions implements ResourceSubscriptionStore {
  constructor(private readonly dataSource: DataSource) {}

  async add(clientSessionId: string, serverId: string, uri: string, max: number): Promise<SubscribeOutcome> {
    // The session row is locked first, so two subscribes of one session cannot both pass the count.
    const [row] = await this.dataSource.query<{ live: string; present: boolean; added: string }[]>(
      `WITH s AS (SELECT id FROM mcp_sessions WHERE id = $1 AND ended_at IS NULL FOR UPDATE),
       n AS (SELECT count(*) AS held, bool_or(server_id = $2 AND uri_sha256 = sha256(convert_to($3, 'UTF8'))) AS present
               FROM mcp_resource_subscriptions WHERE client_session_id = (SELECT id FROM s)),
       i AS (INSERT INTO mcp_resource_subscriptions (client_session_id, server_id, uri_sha256, uri)
             SELECT s.id, $2, sha256(convert_to($3, 'UTF8')), $3 FROM s, n WHERE NOT coalesce(n.present, false) AND n.held < $4
             ON CONFLICT DO NOTHING RETURNING 1)
       SELECT (SELECT count(*) FROM s) AS live, coalesce((SELECT present FROM n), false) AS present, (SELECT count(*) FROM i) AS added`,
      [clientSessionId, serverId, uri, max],
    );
    if (Number(row.live) === 0) return 'ended';
    if (row.present) return 'present';
    return Number(row.added) > 0 ? 'added' : 'full';
  }

  /** Only tells (NOTIFY); ListeningSubscriptions waits for the answer. */
  async following(clientSessionId: string): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [SUBSCRIPTIONS_CHANNEL, clientSessionId]);
  }

  /** The answer to following(): this replica's stream of that upstream of the session listens. */
  async listening(clientSessionId: string, serverId: string): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [LISTENING_CHANNEL, `${clientSessionId} ${serverId}`]);
  }

  /** Whether some replica claims the live session's GET stream (the claim of a replica gone stays until it is stale). */
  async streamHeld(clientSessionId: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      'SELECT 1 FROM mcp_sessions WHERE id = $1 AND ended_at IS NULL AND stream_replica IS NOT NULL',
      [clientSessionId],
    );
    return rows.length > 0;
  }

  async remove(clientSessionId: string, serverId: string, uri: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM mcp_resource_subscriptions WHERE client_session_id = $1 AND server_id = $2 AND uri_sha256 = sha256(convert_to($3, 'UTF8'))`,
      [clientSessionId, serverId, uri],
    );
    return count > 0;
  }

  async has(clientSessionId: string, serverId: string, uri: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM mcp_resource_subscriptions WHERE client_session_id = $1 AND server_id = $2 AND uri_sha256 = sha256(convert_to($3, 'UTF8'))`,
      [clientSessionId, serverId, uri],
    );
    return rows.length > 0;
  }

  /** The URIs a live client session subscribed to, by server record id (a 2026 upstream is asked for them in its listen). */
  async subscribedUris(clientSessionId: string): Promise<Map<string, string[]>> {
    const rows = await this.dataSource.query<{ server_id: string; uri: string }[]>(
      `SELECT r.server_id::text AS server_id, r.uri FROM mcp_resource_subscriptions r JOIN mcp_sessions s ON s.id = r.client_session_id
        WHERE r.client_session_id = $1 AND s.ended_at IS NULL`,
      [clientSessionId],
    );
    const uris = new Map<string, string[]>();
    for (const { server_id: serverId, uri } of rows) uris.set(serverId, [...(uris.get(serverId) ?? []), uri]);
    return uris;
  }

  /** keygate's held sessions with the upstreams of a live client session, whose own notifications its stream relays. */
  async heldSessions(clientSessionId: string): Promise<HeldStreamTarget[]> {
    const rows = await this.dataSource.query<{ server_id: string; upstream_session_id: string; protocol_version: string }[]>(
      `SELECT u.server_id::text AS server_id, u.upstream_session_id, u.protocol_version
         FROM mcp_upstream_sessions u JOIN mcp_sessions s ON s.id = u.client_session_id
        WHERE u.client_session_id = $1 AND s.ended_at IS NULL`,
      [clientSessionId],
    );
    return rows.map((r) => ({ serverId: r.server_id, upstreamSessionId: r.upstream_session_id, protocolVersion: r.protocol_version }));
  }
}
