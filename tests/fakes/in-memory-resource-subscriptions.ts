import { ResourceSubscriptionStore, SubscribeOutcome } from '../../src/application/ports/resource-subscription-store.port';

/** ResourceSubscriptionStore in memory; `ended` plays client sessions that have ended. */
export class InMemoryResourceSubscriptions implements ResourceSubscriptionStore {
  readonly rows = new Map<string, Set<string>>();
  readonly ended = new Set<string>();

  async add(clientSessionId: string, serverId: string, uri: string, max: number): Promise<SubscribeOutcome> {
    if (this.ended.has(clientSessionId)) return 'ended';
    const held = this.rows.get(clientSessionId) ?? new Set<string>();
    const key = JSON.stringify([serverId, uri]);
    if (held.has(key)) return 'present';
    if (held.size >= max) return 'full';
    this.rows.set(clientSessionId, held.add(key));
    return 'added';
  }

  readonly told: string[] = [];
  /** Called in following(), to see what had happened by then. */
  onFollowing: () => void = () => undefined;

  async following(clientSessionId: string, serverId: string): Promise<void> {
    this.told.push(`${clientSessionId} ${serverId}`);
    this.onFollowing();
  }

  async remove(clientSessionId: string, serverId: string, uri: string): Promise<boolean> {
    return this.rows.get(clientSessionId)?.delete(JSON.stringify([serverId, uri])) ?? false;
  }

  async has(clientSessionId: string, serverId: string, uri: string): Promise<boolean> {
    return this.rows.get(clientSessionId)?.has(JSON.stringify([serverId, uri])) ?? false;
  }
}
