import { SessionIdlePolicy } from '../../../../domain/mcp-session';
import { Clock } from '../../../ports/clock.port';
import { McpSessionRepository } from '../../../ports/mcp-session-repository.port';
import { SessionBus } from '../../../ports/session-bus.port';
import { ToolsDigest } from './tools-digest';

/** What may have changed the tools some sessions see: one key (its scopes), or one owner's upstream servers. */
export type ToolChange = { keyId: string } | { userId: string };

export const TOOLS_LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as const;

/**
 * Sends `notifications/tools/list_changed` to the sessions whose visible
 * tools really changed: the digest is computed once per key and compared
 * with the one each session saw last. Every replica hearing the change may
 * run this; the conditional digest update lets only one of them announce it.
 * Returns how many sessions were told.
 */
export class AnnounceToolChanges {
  constructor(
    private readonly sessions: McpSessionRepository,
    private readonly digest: ToolsDigest,
    private readonly bus: SessionBus,
    private readonly clock: Clock,
    private readonly idle: SessionIdlePolicy,
  ) {}

  async execute(input: ToolChange): Promise<number> {
    const cutoff = this.idle.idleCutoff(this.clock.now());
    let told = 0;
    for (const key of await this.sessions.keysWithLiveSessions(input, cutoff)) {
      const digest = await this.digest.of(key.userId, key.scopes);
      for (const id of await this.sessions.recordToolsDigest(key.keyId, digest, cutoff)) {
        if (await this.bus.publishToStream(id, TOOLS_LIST_CHANGED)) told++;
      }
    }
    return told;
  }
}
