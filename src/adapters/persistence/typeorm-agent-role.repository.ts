import { EntityManager, Repository } from 'typeorm';
import { AgentRoleFields, AgentRoleRepository } from '../../application/ports/agent-role-repository.port';
import { AgentRole } from '../../domain/agent-role';
import { ScopeSet } from '../../domain/scope';
import { AgentRoleRow, AgentRoleRowSchema } from './agent-role.row';
import { databaseCall } from './database-unavailable';
import { conflictOnDuplicate } from './unique-violation';

export class TypeormAgentRoleRepository implements AgentRoleRepository {
  private readonly rows: Repository<AgentRoleRow>;

  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(manager: EntityManager) {
    this.rows = manager.getRepository(AgentRoleRowSchema);
  }

  async list(): Promise<AgentRole[]> {
    const rows = await databaseCall(this.rows.find({ order: { is_system: 'DESC', name: 'ASC' } }));
    return rows.map(toDomain);
  }

  async findById(id: string): Promise<AgentRole | null> {
    const row = await databaseCall(this.rows.findOneBy({ id }));
    return row ? toDomain(row) : null;
  }

  async insert(fields: AgentRoleFields, at: Date): Promise<AgentRole> {
    const row = this.rows.create({ ...toColumns(fields), is_system: false, created_at: at, updated_at: at });
    return toDomain(await conflictOnDuplicate(() => this.rows.save(row), duplicate(fields.name)));
  }

  async update(id: string, changes: Partial<AgentRoleFields>, at: Date): Promise<AgentRole | null> {
    const result = await conflictOnDuplicate(
      () => this.rows.update({ id }, { ...toColumns(changes), updated_at: at }),
      duplicate(changes.name),
    );
    return (result.affected ?? 0) > 0 ? this.findById(id) : null;
  }

  async delete(id: string): Promise<boolean> {
    const result = await databaseCall(this.rows.delete({ id }));
    return (result.affected ?? 0) > 0;
  }
}

function duplicate(name?: string): string {
  return `An agent role named ${JSON.stringify(name)} already exists`;
}

function toColumns(fields: Partial<AgentRoleFields>): Partial<AgentRoleRow> {
  const columns: Partial<AgentRoleRow> = {};
  if (fields.name !== undefined) columns.name = fields.name;
  if (fields.description !== undefined) columns.description = fields.description;
  if (fields.platformScopes !== undefined) columns.platform_scopes = fields.platformScopes.toArray();
  return columns;
}

function toDomain(row: AgentRoleRow): AgentRole {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    platformScopes: ScopeSet.fromTrusted(row.platform_scopes),
    isSystem: row.is_system,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
