import { randomUUID } from 'node:crypto';
import { McpConnectionStore, OAuthGrant, OpenedConnection, OpenedGrant } from '../../src/application/ports/mcp-connection-store.port';
import { McpConnection } from '../../src/domain/connection/mcp-connection';

/** Connections in memory, secrets in `secrets` by connection id (tests read both). */
export class InMemoryMcpConnectionStore implements McpConnectionStore {
  readonly connections: McpConnection[] = [];
  readonly secrets = new Map<string, string>();
  readonly grants = new Map<string, OAuthGrant>();
  /** Connection ids whose refresh is claimed. */
  readonly refreshing = new Set<string>();
  private readonly auditedAt = new Map<string, Date>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async find(userId: string, serverId: string): Promise<McpConnection | null> {
    const found = this.connections.find((c) => c.userId === userId && c.serverId === serverId);
    return found ? { ...found } : null;
  }

  async openSecret(userId: string, serverId: string): Promise<OpenedConnection | null> {
    const connection = await this.find(userId, serverId);
    if (!connection || connection.kind !== 'user_secret' || connection.state !== 'connected') return null;
    const secret = this.secrets.get(connection.id);
    if (secret === undefined) return null;
    return { connection, secret };
  }

  async saveSecret(userId: string, serverId: string, secret: string): Promise<{ connection: McpConnection; created: boolean }> {
    const saved = this.upsert(userId, serverId, { kind: 'user_secret', scopes: [], expiresAt: null, account: null });
    this.secrets.set(saved.connection.id, secret);
    return saved;
  }

  async openGrant(userId: string, serverId: string): Promise<OpenedGrant | null> {
    const connection = await this.find(userId, serverId);
    if (!connection || connection.kind !== 'oauth' || connection.state !== 'connected') return null;
    const grant = this.grants.get(connection.id);
    return grant ? { connection, grant: structuredClone(grant) } : null;
  }

  async saveGrant(userId: string, serverId: string, grant: OAuthGrant): Promise<{ connection: McpConnection; created: boolean }> {
    const saved = this.upsert(userId, serverId, {
      kind: 'oauth',
      scopes: grant.tokens.scopes,
      expiresAt: grant.tokens.expiresAt ?? null,
      account: grant.tokens.account ?? null,
    });
    const { id } = saved.connection;
    this.secrets.delete(id);
    this.grants.set(id, structuredClone(grant));
    this.refreshing.delete(id);
    return saved;
  }

  /** The user's connection to the server, connected with these fields: the existing one (same id, created time) or a new one. */
  private upsert(
    userId: string,
    serverId: string,
    fields: Pick<McpConnection, 'kind' | 'scopes' | 'expiresAt' | 'account'>,
  ): { connection: McpConnection; created: boolean } {
    const at = this.now();
    const index = this.connections.findIndex((c) => c.userId === userId && c.serverId === serverId);
    const before = index === -1 ? null : this.connections[index];
    const connection: McpConnection = {
      id: before?.id ?? randomUUID(),
      userId,
      serverId,
      state: 'connected',
      ...fields,
      createdAt: before?.createdAt ?? at,
      updatedAt: at,
    };
    if (before) this.connections[index] = connection;
    else this.connections.push(connection);
    return { connection: { ...connection }, created: before === null };
  }

  async claimRefresh(connectionId: string, _seconds?: number): Promise<boolean> {
    if (this.refreshing.has(connectionId)) return false;
    this.refreshing.add(connectionId);
    return true;
  }

  async saveRefreshed(
    connectionId: string,
    userId: string,
    serverId: string,
    grant: OAuthGrant,
  ): Promise<{ connection: McpConnection; audit: boolean } | null> {
    const connection = this.connections.find((c) => c.id === connectionId && c.kind === 'oauth' && c.state === 'connected');
    if (!connection || connection.userId !== userId || connection.serverId !== serverId) return null;
    const at = this.now();
    connection.scopes = grant.tokens.scopes;
    connection.expiresAt = grant.tokens.expiresAt ?? null;
    connection.account = grant.tokens.account ?? connection.account;
    connection.updatedAt = at;
    this.grants.set(connection.id, structuredClone(grant));
    this.refreshing.delete(connection.id);
    const last = this.auditedAt.get(connection.id);
    const audit = last === undefined || at.getTime() - last.getTime() >= 3_600_000;
    if (audit) this.auditedAt.set(connection.id, at);
    return { connection: { ...connection }, audit };
  }

  async releaseRefresh(connectionId: string): Promise<void> {
    this.refreshing.delete(connectionId);
  }

  async markFailed(userId: string, serverId: string): Promise<McpConnection | null> {
    const connection = this.connections.find((c) => c.userId === userId && c.serverId === serverId && c.kind === 'oauth');
    if (!connection) return null;
    connection.state = 'failed';
    connection.updatedAt = this.now();
    this.grants.delete(connection.id);
    this.refreshing.delete(connection.id);
    return { ...connection };
  }

  async remove(userId: string, serverId: string): Promise<McpConnection | null> {
    const index = this.connections.findIndex((c) => c.userId === userId && c.serverId === serverId);
    if (index === -1) return null;
    const [removed] = this.connections.splice(index, 1);
    this.secrets.delete(removed.id);
    this.grants.delete(removed.id);
    return removed;
  }

  async removeAllOf(serverId: string): Promise<McpConnection[]> {
    const gone = this.connections.filter((c) => c.serverId === serverId);
    for (const c of gone) await this.remove(c.userId, c.serverId);
    return gone;
  }
}
