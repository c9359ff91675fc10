import { ToolChange } from '../../../application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { KEY_CHANGES_CHANNEL, MCP_SERVERS_CHANNEL, NotifiedCache } from '../hot-path/change-listener';

/** Changes heard within this long of each other are looked at once. */
const COALESCE_MS = 50;

/**
 * Hears what may change the tools sessions see (a key's row changed: its
 * scopes; an owner's mcp_servers changed) on the change listener's existing
 * channels, and hands each to `announce`, coalesced and one at a time, after
 * the caches it relies on were dropped by the same notification.
 */
export class ToolChangeWatcher {
  private readonly pending = new Map<string, ToolChange>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly announce: (change: ToolChange) => Promise<unknown>,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
  ) {}

  channels(): NotifiedCache[] {
    const ignore = () => undefined;
    return [
      { channel: KEY_CHANGES_CHANNEL, evict: (id) => this.heard(`k${id}`, { keyId: id }), enable: ignore, disable: ignore },
      { channel: MCP_SERVERS_CHANNEL, evict: (owner) => this.heard(`u${owner}`, { userId: owner }), enable: ignore, disable: ignore },
    ];
  }

  /** Resolves once everything heard so far has been announced (tests, shutdown). */
  async settled(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.flush();
    }
    await this.running;
  }

  private heard(key: string, change: ToolChange): void {
    // `*` (a TRUNCATE) names nothing to compare; the next real change is announced as usual.
    if (key.endsWith('*')) return;
    this.pending.set(key, change);
    this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  private flush(): void {
    this.timer = null;
    const changes = [...this.pending.values()];
    this.pending.clear();
    this.running = this.running.then(async () => {
      for (const change of changes) {
        try {
          await this.announce(change);
        } catch (error) {
          this.log('could not announce a tool list change to MCP sessions', error);
        }
      }
    });
  }
}
