import { ModeToolConfig } from '../../domain/mode';
import { ScopeSet } from '../../domain/scope';

export interface ModeToolConfigFields {
  mode: string;
  additionalScopes: ScopeSet;
}

export interface ModeToolConfigRepository {
  list(): Promise<ModeToolConfig[]>;
  findById(id: string): Promise<ModeToolConfig | null>;
  findByMode(mode: string): Promise<ModeToolConfig | null>;
  /** Throws ConflictError when the mode name is taken. */
  insert(fields: ModeToolConfigFields, at: Date): Promise<ModeToolConfig>;
  update(id: string, changes: Partial<ModeToolConfigFields>, at: Date): Promise<ModeToolConfig | null>;
  /** Removes the config and deletes its sessions; false when it did not exist. */
  delete(id: string): Promise<boolean>;
}
