import { CreateKey } from '../../src/application/use-cases/create-key/create-key.use-case';
import { GetKey } from '../../src/application/use-cases/get-key/get-key.use-case';
import { ListKeys } from '../../src/application/use-cases/list-keys/list-keys.use-case';
import { RevokeKey } from '../../src/application/use-cases/revoke-key/revoke-key.use-case';
import { RollKey } from '../../src/application/use-cases/roll-key/roll-key.use-case';
import { UpdateKey } from '../../src/application/use-cases/update-key/update-key.use-case';
import { ValidateKey } from '../../src/application/use-cases/validate-key/validate-key.use-case';
import { RandomKeyGenerator } from '../../src/adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../../src/adapters/crypto/sha256-key-hasher';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryApiKeyRepository } from '../fakes/in-memory-api-key.repository';
import { InMemoryQuotaBalances } from '../fakes/in-memory-quota-balances';
import { InMemoryUnitOfWork } from '../fakes/in-memory-unit-of-work';

/** The key use-cases over in-memory adapters and a clock the test controls. */
export function makeKeyService(maxKeysPerUser = 100) {
  const repository = new InMemoryApiKeyRepository();
  const quotas = new InMemoryQuotaBalances();
  const work = new InMemoryUnitOfWork({ keys: repository, quotas });
  const clock = new FixedClock();
  const hasher = new Sha256KeyHasher();
  const generator = new RandomKeyGenerator();
  return {
    repository,
    audit: work.audit,
    clock,
    hasher,
    createKey: new CreateKey(work, hasher, generator, clock, { maxKeysPerUser }),
    quotas,
    listKeys: new ListKeys(repository, quotas, clock),
    getKey: new GetKey(repository, quotas, clock),
    revokeKey: new RevokeKey(work, clock),
    rollKey: new RollKey(work, hasher, generator, clock, { maxKeysPerUser }),
    updateKey: new UpdateKey(work, clock),
    validateKey: new ValidateKey(repository, hasher, clock),
  };
}
