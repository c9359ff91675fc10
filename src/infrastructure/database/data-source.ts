import { DataSource } from 'typeorm';
import { AgentRoleRowSchema } from '../../adapters/persistence/agent-role.row';
import { ApiKeyRowSchema } from '../../adapters/persistence/api-key.row';
import { ModeToolConfigRowSchema } from '../../adapters/persistence/mode-tool-config.row';
import { MIGRATIONS } from './migrations';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
}

export function createDataSource(options: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    entities: [ApiKeyRowSchema, AgentRoleRowSchema, ModeToolConfigRowSchema],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    poolSize: options.poolSize ?? 10,
    // Fail fast while PostgreSQL is away, so callers get a 503 instead of hanging.
    connectTimeoutMS: 3000,
    applicationName: options.applicationName ?? 'keygate',
  });
}
