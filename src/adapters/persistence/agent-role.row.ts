import { EntitySchema } from 'typeorm';

export interface AgentRoleRow {
  id: string;
  name: string;
  description: string;
  platform_scopes: string[];
  is_system: boolean;
  created_at: Date;
  updated_at: Date;
}

export const AgentRoleRowSchema = new EntitySchema<AgentRoleRow>({
  name: 'AgentRoleRow',
  tableName: 'agent_roles',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    name: { type: 'varchar', length: 100 },
    description: { type: 'text' },
    platform_scopes: { type: 'text', array: true },
    is_system: { type: 'boolean' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
  },
});
