import { SecretBox } from '../../../application/ports/secret-box.port';

/** The sealed fields of a connection. */
export type ConnectionField = 'secret' | 'tokens';

/**
 * Seals a connection's secret or token set under SECRETS_KEY, bound to its
 * user, server and field: a sealed value copied to another user's row, another
 * server's or another column does not open.
 */
export class ConnectionSecrets {
  constructor(private readonly box: SecretBox) {}

  seal(userId: string, serverId: string, field: ConnectionField, value: string): string {
    return this.box.encrypt(value, contextOf(userId, serverId, field));
  }

  /** Throws (SecretBoxError) when the value was altered, moved, or is under a key this service lacks. */
  open(userId: string, serverId: string, field: ConnectionField, sealed: string): string {
    return this.box.decrypt(sealed, contextOf(userId, serverId, field));
  }
}

function contextOf(userId: string, serverId: string, field: ConnectionField): string {
  return JSON.stringify(['mcp_connections', userId, serverId, field]);
}
