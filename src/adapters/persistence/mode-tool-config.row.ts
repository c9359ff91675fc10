import { EntitySchema } from 'typeorm';

export interface ModeToolConfigRow {
  id: string;
  mode: string;
  additional_scopes: string[];
  created_at: Date;
  updated_at: Date;
}

export const ModeToolConfigRowSchema = new EntitySchema<ModeToolConfigRow>({
  name: 'ModeToolConfigRow',
  tableName: 'mode_tool_configs',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    mode: { type: 'varchar', length: 64 },
    additional_scopes: { type: 'text', array: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
  },
});
