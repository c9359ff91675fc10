/** What recording a subscription did: added, already there, refused at the bound, or the client session has ended. */
export type SubscribeOutcome = 'added' | 'present' | 'full' | 'ended';

/**
 * The resources/subscribe of client sessions, per upstream server record and
 * the upstream's own URI, shared by every replica: the replica holding a
 * session's stream relays an upstream's notifications/resources/updated only
 * for URIs recorded here.
 */
export interface ResourceSubscriptionStore {
  /** Records it unless the session already holds `max` (counted in the same statement) or has ended. */
  add(clientSessionId: string, serverId: string, uri: string, max: number): Promise<SubscribeOutcome>;
  /**
   * Tells whichever replica holds the session's stream that the session
   * follows the upstream of server `serverId`, whose stream it may not listen
   * to yet, and resolves once it does (an update the upstream sends right
   * after answering a subscribe goes out on that stream): at once when no
   * replica holds the session's stream, and after a bound at the latest.
   */
  following(clientSessionId: string, serverId: string): Promise<void>;
  /** False when there was no such subscription. */
  remove(clientSessionId: string, serverId: string, uri: string): Promise<boolean>;
  has(clientSessionId: string, serverId: string, uri: string): Promise<boolean>;
}
