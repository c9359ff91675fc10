import { DataSource } from 'typeorm';

/** Channel that wakes the replicas holding a session's GET streams (standalone or resumed): payload is the session's internal id. */
export const STREAM_CHANNEL = 'keygate_mcp_stream';
/** Channel that asks the replica holding a POST stream to write it out: payload `<session id> <stream>`. */
export const POST_STREAM_WANTED_CHANNEL = 'keygate_mcp_post_stream_wanted';

export interface SessionEventOptions {
  /** Events kept per session; older ones are dropped at each append. */
  maxEventsPerSession: number;
}

export interface StoredEvent {
  seq: number;
  /** The message as JSON text. */
  message: string;
  /** The last event of a POST stream: a resumption closes after it. */
  endsStream: boolean;
}

/**
 * The per-session event log of server-to-client messages (mcp_session_events)
 * and the claim on a session's one standalone stream. The log's seq is the
 * SSE event id, so Last-Event-ID on any replica replays from the same place.
 */
export class PostgresSessionEvents {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: SessionEventOptions,
  ) {}

  /** Appends to the standalone stream and wakes its replica; null when the session has ended (or never was). */
  async append(sessionId: string, message: string): Promise<number | null> {
    return this.insert(sessionId, message, null, false);
  }

  /**
   * Appends an event of a POST's SSE answer: `stream` names that answer,
   * `seq` is the event's place in it (post-stream-event-id.ts); `endsStream`
   * marks the last response the POST awaited. False when the session has ended.
   */
  async appendToPostStream(sessionId: string, stream: number, seq: number, message: string, endsStream: boolean): Promise<boolean> {
    return (await this.insert(sessionId, message, { stream, seq }, endsStream)) !== null;
  }

  /** Asks the replica holding a POST stream to write it to the log (PostStreams.wanted), for a resumption elsewhere. */
  async wantPostStream(sessionId: string, stream: number): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [POST_STREAM_WANTED_CHANNEL, `${sessionId} ${stream}`]);
  }

  /**
   * Events after `afterSeq` of one stream: the standalone one (`stream`
   * null, by the session's seq) or a POST's (by the event's place in it).
   */
  async readAfter(sessionId: string, afterSeq: number, limit: number, stream: number | null = null): Promise<StoredEvent[]> {
    const rows = await this.dataSource.query<{ seq: string; message: string; ends_stream: boolean }[]>(
      stream === null
        ? `SELECT seq::text AS seq, message, ends_stream FROM mcp_session_events
           WHERE session_id = $1 AND seq > $2 AND stream IS NULL ORDER BY seq LIMIT $3`
        : `SELECT post_seq::text AS seq, message, ends_stream FROM mcp_session_events
           WHERE session_id = $1 AND stream = $4 AND post_seq > $2 ORDER BY post_seq LIMIT $3`,
      stream === null ? [sessionId, afterSeq, limit] : [sessionId, afterSeq, limit, stream],
    );
    return rows.map((r) => ({ seq: Number(r.seq), message: r.message, endsStream: r.ends_stream }));
  }

  /** When a POST stream named by its priming event's seq (before names carried their time) opened (epoch ms); null once it is no longer kept, or never was. */
  async postStreamOpenedAt(sessionId: string, stream: number): Promise<number | null> {
    const rows = await this.dataSource.query<{ at: number }[]>(
      'SELECT (extract(epoch FROM created_at) * 1000)::float8 AS at FROM mcp_session_events WHERE session_id = $1 AND seq = $2 AND stream = $2',
      [sessionId, stream],
    );
    return rows.length === 0 ? null : Number(rows[0].at);
  }

  /**
   * Keeps a session alive while a POST stream is resumed (an open stream is
   * activity); false when it ended or its key is no longer usable.
   */
  async touchSession(sessionId: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      `UPDATE mcp_sessions s SET last_seen_at = greatest(s.last_seen_at, now())
       FROM api_keys k
       WHERE s.id = $1 AND s.ended_at IS NULL
         AND k.id = s.key_id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [sessionId],
    );
    return count > 0;
  }

  /**
   * One statement: the session's seq taken, the event written, its
   * replica woken, and the events past the bound dropped.
   */
  private async insert(
    sessionId: string,
    message: string,
    post: { stream: number; seq: number } | null,
    endsStream: boolean,
  ): Promise<number | null> {
    const rows = await this.dataSource.query<{ seq: string }[]>(
      `WITH s AS (UPDATE mcp_sessions SET event_seq = event_seq + 1 WHERE id = $1 AND ended_at IS NULL RETURNING id, event_seq),
       e AS (INSERT INTO mcp_session_events (session_id, seq, message, created_at, stream, post_seq, ends_stream)
             SELECT id, event_seq, $2, now(), $4::bigint, $5::bigint, $6 FROM s RETURNING seq),
       d AS (DELETE FROM mcp_session_events o USING s WHERE o.session_id = s.id AND s.event_seq > $7 AND o.seq <= s.event_seq - $7)
       SELECT seq::text AS seq, pg_notify($3, $1::text) FROM e`,
      [sessionId, message, STREAM_CHANNEL, post?.stream ?? null, post?.seq ?? null, endsStream, this.options.maxEventsPerSession],
    );
    return rows.length === 0 ? null : Number(rows[0].seq);
  }

  /**
   * Claims the session's standalone stream for `replica` unless another
   * holds a claim refreshed within `staleMs`. Returns the session's last
   * event seq (where a stream without Last-Event-ID starts), or null when
   * the claim is held elsewhere or the session is gone.
   */
  async claimStream(sessionId: string, replica: string, staleMs: number): Promise<number | null> {
    const [rows] = await this.dataSource.query<[{ seq: string }[], number]>(
      `UPDATE mcp_sessions SET stream_replica = $2, stream_seen_at = now(), last_seen_at = greatest(last_seen_at, now())
       WHERE id = $1 AND ended_at IS NULL AND (stream_replica IS NULL OR stream_seen_at < now() - make_interval(secs => $3::float8 / 1000))
       RETURNING event_seq::text AS seq`,
      [sessionId, replica, staleMs],
    );
    return rows.length === 0 ? null : Number(rows[0].seq);
  }

  /**
   * Keeps the claim (and the session: an open stream is activity) alive.
   * False when the session ended, its key is no longer usable (a token's session: its token expired), or the claim
   * was lost: the stream should close.
   */
  async refreshStream(sessionId: string, replica: string): Promise<boolean> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      `UPDATE mcp_sessions s SET stream_seen_at = now(), last_seen_at = greatest(s.last_seen_at, now())
       WHERE s.id = $1 AND s.stream_replica = $2 AND s.ended_at IS NULL
         AND CASE WHEN s.expires_at IS NOT NULL THEN s.expires_at > now()
                  ELSE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = s.key_id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) END`,
      [sessionId, replica],
    );
    return count > 0;
  }

  async releaseStream(sessionId: string, replica: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE mcp_sessions SET stream_replica = NULL, stream_seen_at = NULL WHERE id = $1 AND stream_replica = $2',
      [sessionId, replica],
    );
  }
}
