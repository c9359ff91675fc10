import { DataSource } from 'typeorm';

export interface SessionPurgeOptions {
  /** Sessions last seen before this have ended by idleness. */
  idleCutoff: () => Date;
  /** How long a stream event stays replayable. */
  eventTtlMs: number;
  intervalMs?: number;
  log?: (message: string, error?: unknown) => void;
}

/** Rows per statement: a purge never holds long locks, and what is left waits for the next run. */
export const PURGE_BATCH = 500;
/** Large bus messages are read within moments of their NOTIFY; older rows are garbage. */
const BUS_ROW_TTL_SECONDS = 120;

/**
 * Ends idle sessions (which NOTIFYs every replica to close their streams),
 * then deletes ended sessions, aged stream events and spent bus rows, each in
 * bounded batches, at start and every interval. Requests check idleness
 * themselves, so a late purge only keeps rows longer, never a session alive.
 */
export class SessionPurge {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: SessionPurgeOptions,
  ) {}

  async start(): Promise<void> {
    await this.run();
    this.timer = setInterval(() => void this.run(), this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async run(): Promise<void> {
    try {
      await this.dataSource.query(
        `UPDATE mcp_sessions SET ended_at = now() WHERE id IN (
           SELECT id FROM mcp_sessions WHERE ended_at IS NULL AND last_seen_at < $1 LIMIT ${PURGE_BATCH})`,
        [this.options.idleCutoff()],
      );
      await this.dataSource.query(
        `DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions WHERE ended_at IS NOT NULL LIMIT ${PURGE_BATCH})`,
      );
      await this.dataSource.query(
        `DELETE FROM mcp_session_events WHERE (session_id, seq) IN (
           SELECT session_id, seq FROM mcp_session_events WHERE created_at < now() - make_interval(secs => $1::float8 / 1000) LIMIT ${PURGE_BATCH})`,
        [this.options.eventTtlMs],
      );
      await this.dataSource.query(
        `DELETE FROM mcp_session_bus WHERE id IN (
           SELECT id FROM mcp_session_bus WHERE created_at < now() - interval '${BUS_ROW_TTL_SECONDS} seconds' LIMIT ${PURGE_BATCH})`,
      );
    } catch (error) {
      this.options.log?.('MCP session purge failed; it runs again at the next interval', error);
    }
  }
}
