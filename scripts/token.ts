import path from 'node:path';
import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { isUuid } from '../src/domain/uuid';
import { devUserId } from '../src/infrastructure/server/dev-identity';

/** npm run token -- [--sub <uuid>] [--admin] [--ttl <seconds>]: mints a development access token. */
function main(argv: string[]): void {
  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || '.data');
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sub = arg('--sub') ?? devUserId(dataDir);
  if (!isUuid(sub)) {
    process.stderr.write('--sub must be a UUID\n');
    process.exit(2);
  }
  const ttl = Number(arg('--ttl') ?? 24 * 3600);
  const issuer = DevTokenIssuer.loadOrCreate(dataDir);
  process.stdout.write(
    issuer.mint({ sub, admin: argv.includes('--admin'), adminRole: process.env.JWT_ADMIN_ROLE?.trim() || 'admin', ttlSeconds: ttl }) + '\n',
  );
}

main(process.argv.slice(2));
