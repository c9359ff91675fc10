import { EntityManager, Repository } from 'typeorm';
import { ModeToolConfigFields, ModeToolConfigRepository } from '../../application/ports/mode-tool-config-repository.port';
import { ModeToolConfig } from '../../domain/mode';
import { ScopeSet } from '../../domain/scope';
import { databaseCall } from './database-unavailable';
import { ModeToolConfigRow, ModeToolConfigRowSchema } from './mode-tool-config.row';
import { conflictOnDuplicate } from './unique-violation';

export class TypeormModeToolConfigRepository implements ModeToolConfigRepository {
  private readonly rows: Repository<ModeToolConfigRow>;

  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(manager: EntityManager) {
    this.rows = manager.getRepository(ModeToolConfigRowSchema);
  }

  async list(): Promise<ModeToolConfig[]> {
    return (await databaseCall(this.rows.find({ order: { mode: 'ASC' } }))).map(toDomain);
  }

  async findById(id: string): Promise<ModeToolConfig | null> {
    const row = await databaseCall(this.rows.findOneBy({ id }));
    return row ? toDomain(row) : null;
  }

  async findByMode(mode: string): Promise<ModeToolConfig | null> {
    const row = await databaseCall(this.rows.findOneBy({ mode }));
    return row ? toDomain(row) : null;
  }

  async insert(fields: ModeToolConfigFields, at: Date): Promise<ModeToolConfig> {
    const row = this.rows.create({ ...toColumns(fields), created_at: at, updated_at: at });
    return toDomain(await conflictOnDuplicate(() => this.rows.save(row), duplicate(fields.mode)));
  }

  async update(id: string, changes: Partial<ModeToolConfigFields>, at: Date): Promise<ModeToolConfig | null> {
    const result = await conflictOnDuplicate(
      () => this.rows.update({ id }, { ...toColumns(changes), updated_at: at }),
      duplicate(changes.mode),
    );
    return (result.affected ?? 0) > 0 ? this.findById(id) : null;
  }

  async delete(id: string): Promise<boolean> {
    return ((await databaseCall(this.rows.delete({ id }))).affected ?? 0) > 0;
  }
}

function duplicate(mode?: string): string {
  return `A tool configuration for mode ${JSON.stringify(mode)} already exists`;
}

function toColumns(fields: Partial<ModeToolConfigFields>): Partial<ModeToolConfigRow> {
  const columns: Partial<ModeToolConfigRow> = {};
  if (fields.mode !== undefined) columns.mode = fields.mode;
  if (fields.additionalScopes !== undefined) columns.additional_scopes = fields.additionalScopes.toArray();
  return columns;
}

function toDomain(row: ModeToolConfigRow): ModeToolConfig {
  return {
    id: row.id,
    mode: row.mode,
    additionalScopes: ScopeSet.fromTrusted(row.additional_scopes),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
