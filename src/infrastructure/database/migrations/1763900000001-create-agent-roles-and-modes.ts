import { MigrationInterface, QueryRunner } from 'typeorm';

const READ_ALL = ['agents:read', 'projects:read', 'routines:read', 'mcp_servers:read', 'chat:read', 'models:read'];
const WRITE_ALL = READ_ALL.map((s) => s.replace(':read', ':write'));

/** System roles: documented defaults in docs/scopes.md; admins may edit them but not delete them. */
const SYSTEM_ROLES: [string, string, string[]][] = [
  ['observer', 'Reads everything, changes nothing', READ_ALL],
  [
    'planner',
    'Plans work: writes projects and routines, reads the rest',
    ['projects:write', 'routines:write', 'agents:read', 'mcp_servers:read', 'chat:read', 'models:read'],
  ],
  ['operator', 'Operates the platform: every scope', [...READ_ALL, ...WRITE_ALL]],
];

export class CreateAgentRolesAndModes1763900000001 implements MigrationInterface {
  name = 'CreateAgentRolesAndModes1763900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE agent_roles (
        id              uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        name            varchar(100) NOT NULL CHECK (length(btrim(name)) > 0),
        description     text         NOT NULL DEFAULT '',
        platform_scopes text[]       NOT NULL DEFAULT '{}',
        is_system       boolean      NOT NULL DEFAULT false,
        created_at      timestamptz  NOT NULL DEFAULT now(),
        updated_at      timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX agent_roles_name_uq ON agent_roles (lower(name))');
    await queryRunner.query(`
      CREATE TABLE mode_tool_configs (
        id                uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        mode              varchar(64) NOT NULL CHECK (length(btrim(mode)) > 0),
        additional_scopes text[]      NOT NULL CHECK (cardinality(additional_scopes) > 0),
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX mode_tool_configs_mode_uq ON mode_tool_configs (mode)');
    await queryRunner.query(`
      CREATE TABLE mode_sessions (
        id                  uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_role_id       uuid        NOT NULL REFERENCES agent_roles (id) ON DELETE CASCADE,
        mode_tool_config_id uuid        NOT NULL REFERENCES mode_tool_configs (id) ON DELETE CASCADE,
        user_id             uuid        NOT NULL,
        started_at          timestamptz NOT NULL DEFAULT now(),
        ended_at            timestamptz NULL
      )`);
    await queryRunner.query('CREATE INDEX mode_sessions_role_idx ON mode_sessions (agent_role_id)');
    await queryRunner.query('CREATE INDEX mode_sessions_mode_idx ON mode_sessions (mode_tool_config_id)');
    for (const [name, description, scopes] of SYSTEM_ROLES) {
      await queryRunner.query('INSERT INTO agent_roles (name, description, platform_scopes, is_system) VALUES ($1, $2, $3, true)', [
        name,
        description,
        scopes,
      ]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mode_sessions');
    await queryRunner.query('DROP TABLE mode_tool_configs');
    await queryRunner.query('DROP TABLE agent_roles');
  }
}
