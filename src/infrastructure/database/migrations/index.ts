import { CreateApiKeys1763900000000 } from './1763900000000-create-api-keys';

/** Listed explicitly so the same list works from ts sources, compiled code and tests. */
export const MIGRATIONS = [CreateApiKeys1763900000000];
