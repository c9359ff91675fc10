import { createDataSource } from './src/infrastructure/database/data-source';

/**
 * The DataSource for the TypeORM CLI (`npm run typeorm -- migration:show`).
 * TypeORM 1.x reads no TYPEORM_* variables, so the URL comes from DATABASE_URL here.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to use the TypeORM CLI');

export default createDataSource({ url, applicationName: 'keygate-cli' });
