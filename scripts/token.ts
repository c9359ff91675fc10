import { DevTokenIssuer } from '../src/adapters/auth/dev-token-issuer';
import { isUuid } from '../src/domain/uuid';
import { loadConfig } from '../src/infrastructure/config/config';
import { devUserId } from '../src/infrastructure/server/dev-identity';

/** npm run token -- [--sub <uuid>] [--admin] [--ttl <seconds>]: mints a development access token. */
function main(argv: string[]): void {
  // The service's own settings, so the token is for the issuer and admin role it trusts.
  const { dataDir, jwt } = loadConfig();
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sub = arg('--sub') ?? devUserId(dataDir);
  if (!isUuid(sub)) {
    process.stderr.write('--sub must be a UUID\n');
    process.exit(2);
  }
  const issuer = DevTokenIssuer.loadOrCreate(dataDir, jwt.maxLifetimeSeconds);
  const ttl = arg('--ttl') === undefined ? undefined : Number(arg('--ttl'));
  try {
    process.stdout.write(issuer.mint({ sub, admin: argv.includes('--admin'), adminRole: jwt.adminRole, ttlSeconds: ttl }) + '\n');
  } catch (error) {
    process.stderr.write(`--ttl: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

main(process.argv.slice(2));
