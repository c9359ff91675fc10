import { randomUUID } from 'node:crypto';
import { AgentRoleFields, AgentRoleRepository } from '../../src/application/ports/agent-role-repository.port';
import { AgentRole } from '../../src/domain/agent-role';
import { ConflictError } from '../../src/domain/errors';
import { ScopeSet } from '../../src/domain/scope';
import { InMemoryModeSessionRepository } from './in-memory-mode-session.repository';

/**
 * The role port over a Map, for use-case unit tests only. Mirrors the table:
 * names unique on lower(name), scopes stored as arrays, system roles first
 * then by name (C collation), and deleting a role deletes its sessions.
 */
export class InMemoryAgentRoleRepository implements AgentRoleRepository {
  readonly rows = new Map<string, AgentRole>();

  constructor(private readonly sessions?: InMemoryModeSessionRepository) {
    sessions?.linkRoles((id) => (this.rows.has(id) ? true : undefined));
  }

  /** What the migration does for system roles; the port cannot create them. */
  seedSystemRole(name: string, scopes: string[], at = new Date('2026-01-01T00:00:00.000Z')): AgentRole {
    const role: AgentRole = {
      id: randomUUID(),
      name,
      description: '',
      platformScopes: ScopeSet.fromTrusted(scopes),
      isSystem: true,
      createdAt: at,
      updatedAt: at,
    };
    this.assertNameFree(name, role.id);
    this.rows.set(role.id, role);
    return copy(role);
  }

  async list(): Promise<AgentRole[]> {
    return [...this.rows.values()]
      .sort((a, b) => Number(b.isSystem) - Number(a.isSystem) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(copy);
  }

  async findById(id: string): Promise<AgentRole | null> {
    const row = this.rows.get(id);
    return row ? copy(row) : null;
  }

  async insert(fields: AgentRoleFields, at: Date): Promise<AgentRole> {
    const id = randomUUID();
    this.assertNameFree(fields.name, id);
    const row: AgentRole = { id, ...fields, isSystem: false, createdAt: at, updatedAt: at };
    this.rows.set(id, copy(row));
    return copy(row);
  }

  async update(id: string, changes: Partial<AgentRoleFields>, at: Date): Promise<AgentRole | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    if (changes.name !== undefined) this.assertNameFree(changes.name, id);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    this.rows.set(id, copy({ ...row, ...defined, updatedAt: at }));
    return copy(this.rows.get(id)!);
  }

  async delete(id: string): Promise<boolean> {
    if (!this.rows.delete(id)) return false;
    this.sessions?.deleteWhere('agentRoleId', id);
    return true;
  }

  private assertNameFree(name: string, ownId: string): void {
    const taken = [...this.rows.values()].some((r) => r.id !== ownId && r.name.toLowerCase() === name.toLowerCase());
    if (taken) throw new ConflictError(`An agent role named ${JSON.stringify(name)} already exists`);
  }
}

/** A round trip through the stored array form, as the database does. */
function copy(role: AgentRole): AgentRole {
  return {
    ...role,
    platformScopes: ScopeSet.fromTrusted(role.platformScopes.toArray()),
    createdAt: new Date(role.createdAt),
    updatedAt: new Date(role.updatedAt),
  };
}
