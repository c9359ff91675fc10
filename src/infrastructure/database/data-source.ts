import { DataSource } from 'typeorm';
import { ApiKeyRowSchema } from '../../adapters/persistence/api-key.row';
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
    entities: [ApiKeyRowSchema],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    poolSize: options.poolSize ?? 10,
    applicationName: options.applicationName ?? 'keygate',
  });
}
