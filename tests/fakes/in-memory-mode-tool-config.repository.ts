import { randomUUID } from 'node:crypto';
import { ModeToolConfigFields, ModeToolConfigRepository } from '../../src/application/ports/mode-tool-config-repository.port';
import { ConflictError } from '../../src/domain/errors';
import { ModeToolConfig } from '../../src/domain/mode';
import { ScopeSet } from '../../src/domain/scope';
import { InMemoryModeSessionRepository } from './in-memory-mode-session.repository';

/**
 * The mode config port over a Map, for use-case unit tests only. Mirrors the
 * table: mode unique (exact, as the index is on mode itself), listed by mode
 * (C collation), and deleting a config deletes its sessions.
 */
export class InMemoryModeToolConfigRepository implements ModeToolConfigRepository {
  readonly rows = new Map<string, ModeToolConfig>();

  constructor(private readonly sessions?: InMemoryModeSessionRepository) {
    sessions?.linkModes((id) => this.rows.get(id)?.mode);
  }

  async list(): Promise<ModeToolConfig[]> {
    return [...this.rows.values()].sort((a, b) => (a.mode < b.mode ? -1 : a.mode > b.mode ? 1 : 0)).map(copy);
  }

  async findById(id: string): Promise<ModeToolConfig | null> {
    const row = this.rows.get(id);
    return row ? copy(row) : null;
  }

  async findByMode(mode: string): Promise<ModeToolConfig | null> {
    const row = [...this.rows.values()].find((r) => r.mode === mode);
    return row ? copy(row) : null;
  }

  async insert(fields: ModeToolConfigFields, at: Date): Promise<ModeToolConfig> {
    const id = randomUUID();
    this.assertModeFree(fields.mode, id);
    const row: ModeToolConfig = { id, ...fields, createdAt: at, updatedAt: at };
    this.rows.set(id, copy(row));
    return copy(row);
  }

  async update(id: string, changes: Partial<ModeToolConfigFields>, at: Date): Promise<ModeToolConfig | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    if (changes.mode !== undefined) this.assertModeFree(changes.mode, id);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    this.rows.set(id, copy({ ...row, ...defined, updatedAt: at }));
    return copy(this.rows.get(id)!);
  }

  async delete(id: string): Promise<boolean> {
    if (!this.rows.delete(id)) return false;
    this.sessions?.deleteWhere('modeToolConfigId', id);
    return true;
  }

  private assertModeFree(mode: string, ownId: string): void {
    if ([...this.rows.values()].some((r) => r.id !== ownId && r.mode === mode)) {
      throw new ConflictError(`A tool configuration for mode ${JSON.stringify(mode)} already exists`);
    }
  }
}

/** A round trip through the stored array form, as the database does. */
function copy(config: ModeToolConfig): ModeToolConfig {
  return {
    ...config,
    additionalScopes: ScopeSet.fromTrusted(config.additionalScopes.toArray()),
    createdAt: new Date(config.createdAt),
    updatedAt: new Date(config.updatedAt),
  };
}
