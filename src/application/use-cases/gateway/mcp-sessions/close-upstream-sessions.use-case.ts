import { ResourceStore } from '../../../ports/resource-store.port';
import { UpstreamMcp } from '../../../ports/upstream-mcp.port';
import { UpstreamSessionStore } from '../../../ports/upstream-session-store.port';
import { reachableAsRegistered, SERVERS, toServer } from '../external/upstream-servers';

export interface CloseUpstreamSessionsInput {
  /** The client session that ended (internal id). */
  clientSessionId: string;
}

/**
 * A client session ended (DELETE, idle, its key revoked): keygate's sessions
 * with its upstreams end too. Every replica hears the end; the one whose
 * take() gets the rows sends each upstream its DELETE, at once and each
 * within the upstream timeout. An upstream whose record is gone (or unreadable) is not told.
 */
export class CloseUpstreamSessions {
  constructor(
    private readonly sessions: UpstreamSessionStore,
    private readonly records: ResourceStore,
    private readonly upstream: UpstreamMcp,
  ) {}

  async execute(input: CloseUpstreamSessionsInput): Promise<number> {
    const taken = await this.sessions.take(input.clientSessionId);
    const terminate = this.upstream.terminate?.bind(this.upstream);
    if (taken.length === 0 || terminate === undefined) return 0;
    const closed = await Promise.all(
      taken.map(async (held) => {
        const record = await this.records.find(held.userId, SERVERS, held.serverId);
        // One whose header values did not decrypt cannot be reached as registered either; one with per-user
        // credentials is not reached without its user's call (the upstream ends the session when it expires).
        if (record === null || !reachableAsRegistered(record)) return 0;
        await terminate(toServer(record), held);
        return 1;
      }),
    );
    return closed.reduce<number>((sum, one) => sum + one, 0);
  }
}
