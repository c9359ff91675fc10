import { Agent } from 'undici';
import { UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { reachableAsRegistered, toServer } from '../../../application/use-cases/gateway/external/upstream-servers';
import { UpstreamView } from '../../../application/use-cases/gateway/external/upstream-view';
import { ResourceRecord } from '../../../domain/resource/resource-record';
import { UpstreamListen, UpstreamListenLimits, upstreamOffers } from '../modern/listen-upstream';
import { openModernListen } from '../modern/listen-upstream-modern';
import { UpstreamProfile } from '../upstream/upstream-profile';
import { ListenedTarget, NotificationStream, StreamHolder } from './upstream-notification-streams';

export interface ModernListenSources {
  /** The owner's servers the session's endpoint shows. */
  servers(userId: string, view: UpstreamView): Promise<readonly ResourceRecord[]>;
  /** The session's resources/subscribe, by server record id (upstream URIs). */
  subscribed(sessionId: string): Promise<ReadonlyMap<string, readonly string[]>>;
  profileOf(server: UpstreamServer): Promise<UpstreamProfile>;
}

/**
 * A 2025 client session's GET stream in front of 2026-07-28 upstreams (none
 * has a held session): for the one upstream of /mcp/servers/<name>, and on
 * /mcp for each upstream the session subscribed to (as a 2025 upstream is
 * listened to only once the session used it, and no upstream is probed for
 * it), one subscriptions/listen of keygate's, asking for the list changes the
 * upstream declares and for the URIs the session subscribed to there; the
 * session's subscribe, recorded first, makes the holder look again and
 * listen anew with the new URI before the subscribe is answered
 * (listening-subscriptions.ts). What it hears goes to the same relay as a
 * 2025 upstream's GET stream.
 */
export function modernListens(
  sources: ModernListenSources,
  agent: Agent,
  limits: UpstreamListenLimits,
): (holder: StreamHolder, held: ReadonlySet<string>) => Promise<ListenedTarget[]> {
  return async (holder, held) => {
    const subscribed = await sources.subscribed(holder.sessionId);
    if (holder.view.server === null && subscribed.size === 0) return [];
    const records = (await sources.servers(holder.userId, holder.view)).filter(
      (record) => !held.has(record.id) && reachableAsRegistered(record) && (holder.view.server !== null || subscribed.has(record.id)),
    );
    const targets: ListenedTarget[] = [];
    for (const record of records) {
      const server = toServer(record);
      const profile = await sources.profileOf(server);
      if (profile.era !== 'modern') continue;
      const offers = upstreamOffers(profile.capabilities);
      const uris = offers.subscribe ? [...(subscribed.get(record.id) ?? [])].sort() : [];
      if (offers.flags.size === 0 && uris.length === 0) continue;
      const flags = offers.flags;
      targets.push({
        serverId: record.id,
        key: `listen ${server.version} ${[...flags].sort().join(',')} ${uris.join('\n')}`,
        open: (onMessage) =>
          new ListenStreamHandle(() =>
            openModernListen(
              {
                server,
                flags,
                uris,
                onNotice: (notice) => onMessage({ jsonrpc: '2.0', method: notice.method, ...(notice.params && { params: notice.params }) }),
              },
              profile.discover,
              agent,
              limits,
            ),
          ),
      });
    }
    return targets;
  };
}

/** A 2026 upstream's listen as upstream-notification-streams.ts holds a stream: listening once acknowledged, closed when it ends. */
class ListenStreamHandle implements NotificationStream {
  private ended = false;
  private readonly opened: Promise<UpstreamListen | null>;

  constructor(open: () => Promise<UpstreamListen>) {
    this.opened = open().then(
      (listen) => {
        void listen.ended.then(() => void (this.ended = true));
        if (this.ended) void listen.close();
        return listen;
      },
      () => ((this.ended = true), null),
    );
  }

  get closed(): boolean {
    return this.ended;
  }

  whenListening(): Promise<boolean> {
    return this.opened.then((listen) => listen !== null && !this.ended);
  }

  close(): void {
    this.ended = true;
    void this.opened.then((listen) => listen?.close());
  }
}
