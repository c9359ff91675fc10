import { CreateKey } from '../../src/application/use-cases/create-key/create-key.use-case';
import { ListKeys } from '../../src/application/use-cases/list-keys/list-keys.use-case';
import { RevokeKey } from '../../src/application/use-cases/revoke-key/revoke-key.use-case';
import { ValidateKey } from '../../src/application/use-cases/validate-key/validate-key.use-case';
import { RandomKeyGenerator } from '../../src/adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../../src/adapters/crypto/sha256-key-hasher';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryApiKeyRepository } from '../fakes/in-memory-api-key.repository';

/** The key use-cases over in-memory adapters and a clock the test controls. */
export function makeKeyService(maxKeysPerUser = 100) {
  const repository = new InMemoryApiKeyRepository();
  const clock = new FixedClock();
  const hasher = new Sha256KeyHasher();
  return {
    repository,
    clock,
    hasher,
    createKey: new CreateKey(repository, hasher, new RandomKeyGenerator(), clock, { maxKeysPerUser }),
    listKeys: new ListKeys(repository),
    revokeKey: new RevokeKey(repository, clock),
    validateKey: new ValidateKey(repository, hasher, clock),
  };
}
