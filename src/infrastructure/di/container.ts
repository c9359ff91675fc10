import 'reflect-metadata';
import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyGenerator } from '../../application/ports/key-generator.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { KeyPolicy } from '../../application/ports/key-policy.port';
import { SecretBox } from '../../application/ports/secret-box.port';
import { CreateKey } from '../../application/use-cases/create-key/create-key.use-case';
import { FilterTools } from '../../application/use-cases/filter-tools/filter-tools.use-case';
import { ListKeys } from '../../application/use-cases/list-keys/list-keys.use-case';
import { RevokeKey } from '../../application/use-cases/revoke-key/revoke-key.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { AesGcmSecretBox } from '../../adapters/crypto/aes-gcm-secret-box';
import { RandomKeyGenerator } from '../../adapters/crypto/random-key-generator';
import { Sha256KeyHasher } from '../../adapters/crypto/sha256-key-hasher';
import { SystemClock } from '../../adapters/crypto/system-clock';
import { ApiKeysController } from '../../adapters/http/controllers/api-keys.controller';
import { TypeormApiKeyRepository } from '../../adapters/persistence/typeorm-api-key.repository';
import { HotPath } from '../database/hot-path';
import { Metrics } from '../../adapters/observability/metrics';
import { Logger } from 'pino';
import { createLogger } from '../logging/logger';
import { Config } from '../config/config';
import { bindScopeContexts } from './scope-context.bindings';
import { bindMcp } from './mcp.bindings';
import { TOKENS } from './tokens';

export interface ContainerParts {
  config: Config;
  dataSource: DataSource;
  /** Needed by the HTTP edge only; internal jobs leave it out. */
  verifier?: AccessTokenVerifier;
  /** One registry per app; a fresh one when absent. */
  metrics?: Metrics;
  /** Where adapters report what they survive (an upstream that failed); LOG_LEVEL's logger when absent. */
  logger?: Logger;
  /** Tests pin time; everything else uses the system clock. */
  clock?: Clock;
}

/**
 * The composition root: the only place that knows which adapter serves which
 * port. Classes carry no decorators; each is built by a factory from its tokens.
 */
export function buildContainer(parts: ContainerParts): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind<Config>(TOKENS.Config).toConstantValue(parts.config);
  c.bind<DataSource>(TOKENS.DataSource).toConstantValue(parts.dataSource);
  if (parts.verifier) c.bind<AccessTokenVerifier>(TOKENS.AccessTokenVerifier).toConstantValue(parts.verifier);
  c.bind<Clock>(TOKENS.Clock).toConstantValue(parts.clock ?? new SystemClock());
  c.bind<KeyHasher>(TOKENS.KeyHasher).toConstantValue(new Sha256KeyHasher());
  c.bind<KeyGenerator>(TOKENS.KeyGenerator).toConstantValue(new RandomKeyGenerator());
  c.bind<KeyPolicy>(TOKENS.KeyPolicy).toConstantValue({ maxKeysPerUser: parts.config.maxKeysPerUser });
  const metrics = parts.metrics ?? new Metrics();
  c.bind<Metrics>(TOKENS.Metrics).toConstantValue(metrics);
  c.bind<Logger>(TOKENS.Logger).toConstantValue(parts.logger ?? createLogger(parts.config.ops.logLevel));
  const secrets = secretBoxFor(parts.config);
  if (secrets) c.bind<SecretBox>(TOKENS.SecretBox).toConstantValue(secrets);
  const hotPath = new HotPath(parts.dataSource, new TypeormApiKeyRepository(parts.dataSource), {
    ...parts.config.hotPath,
    secrets,
    onFlushBatch: () => metrics.lastUsedFlushBatches.inc(),
    onKeyLookup: (hit) => metrics.keyCacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
  });
  c.bind<HotPath>(TOKENS.HotPath).toConstantValue(hotPath);
  c.bind<ApiKeyRepository>(TOKENS.ApiKeyRepository).toConstantValue(hotPath.keys);

  c.bind(CreateKey).toResolvedValue(
    (keys: ApiKeyRepository, hasher: KeyHasher, gen: KeyGenerator, clock: Clock, policy: KeyPolicy) =>
      new CreateKey(keys, hasher, gen, clock, policy),
    [TOKENS.ApiKeyRepository, TOKENS.KeyHasher, TOKENS.KeyGenerator, TOKENS.Clock, TOKENS.KeyPolicy],
  );
  c.bind(ListKeys).toResolvedValue((keys: ApiKeyRepository) => new ListKeys(keys), [TOKENS.ApiKeyRepository]);
  c.bind(RevokeKey).toResolvedValue(
    (keys: ApiKeyRepository, clock: Clock) => new RevokeKey(keys, clock),
    [TOKENS.ApiKeyRepository, TOKENS.Clock],
  );
  c.bind(ValidateKey).toResolvedValue(
    (keys: ApiKeyRepository, hasher: KeyHasher, clock: Clock) => new ValidateKey(keys, hasher, clock),
    [TOKENS.ApiKeyRepository, TOKENS.KeyHasher, TOKENS.Clock],
  );
  c.bind(FilterTools).toConstantValue(new FilterTools());

  c.bind(ApiKeysController).toResolvedValue(
    (create: CreateKey, list: ListKeys, revoke: RevokeKey) => new ApiKeysController(create, list, revoke),
    [CreateKey, ListKeys, RevokeKey],
  );
  bindMcp(c);
  bindScopeContexts(c);
  return c;
}

/**
 * None without a key: the service resolves one first (withSecretsKey), while
 * internal jobs, which never read stored secrets, may run without it.
 */
export function secretBoxFor(config: Config): AesGcmSecretBox | undefined {
  return config.secrets.key ? new AesGcmSecretBox(config.secrets.key, config.secrets.previous) : undefined;
}
