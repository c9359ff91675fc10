/** What recording a subscription did: added, already there, refused at the bound, or the client session has ended. */
export type SubscribeOutcome = 'added' | 'present' | 'full' | 'ended';

/**
 * The resources/subscribe of client sessions, per upstream server record and
 * the upstream's own URI, shared by every replica: the replica holding a
 * session's stream relays an upstream's notifications/resources/updated only
 * for URIs recorded here.
 */
export interface ResourceSubscriptionStore {
  /** Records it unless the session already holds `max` (counted in the same statement) or has ended; tells the stream's replica. */
  add(clientSessionId: string, serverId: string, uri: string, max: number): Promise<SubscribeOutcome>;
  /** False when there was no such subscription. */
  remove(clientSessionId: string, serverId: string, uri: string): Promise<boolean>;
  has(clientSessionId: string, serverId: string, uri: string): Promise<boolean>;
}
