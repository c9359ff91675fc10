import { AgentRole } from '../../domain/agent-role';
import { ScopeSet } from '../../domain/scope';

export interface AgentRoleFields {
  name: string;
  description: string;
  platformScopes: ScopeSet;
}

export interface AgentRoleRepository {
  list(): Promise<AgentRole[]>;
  findById(id: string): Promise<AgentRole | null>;
  /** Throws ConflictError when the name is taken. */
  insert(fields: AgentRoleFields, at: Date): Promise<AgentRole>;
  /** Null when the role does not exist; throws ConflictError when the new name is taken. */
  update(id: string, changes: Partial<AgentRoleFields>, at: Date): Promise<AgentRole | null>;
  /** Removes the role and deletes its mode sessions; false when it did not exist. */
  delete(id: string): Promise<boolean>;
}
