import { Container } from 'inversify';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { QuotaBalances } from '../../application/ports/quota-balances.port';
import { GetKey } from '../../application/use-cases/get-key/get-key.use-case';
import { TOKENS } from './tokens';

/** GET /api/v1/api-keys/:id (the console's key detail): the list's repository and balances, one key. */
export function bindKeyDetail(c: Container): void {
  c.bind(GetKey).toResolvedValue(
    (keys: ApiKeyRepository, quotas: QuotaBalances, clock: Clock) => new GetKey(keys, quotas, clock),
    [TOKENS.ApiKeyRepository, TOKENS.QuotaBalances, TOKENS.Clock],
  );
}
