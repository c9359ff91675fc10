import { displayPrefixOf } from '../../domain/api-key';
import { InvalidApiKeyError } from '../../domain/errors';
import { KeyPrincipal, ValidateKey, ValidateKeyInput } from '../../application/use-cases/validate-key/validate-key.use-case';
import { Tracing } from './tracing';

/**
 * ValidateKey in a `keygate.key.validate` span: its outcome, and for a valid
 * key its display prefix and owner (the key cache's hit or miss is added by
 * the key repository, inside this span). Bound only when tracing is on.
 */
export class TracedValidateKey extends ValidateKey {
  constructor(
    private readonly tracing: Tracing,
    ...parts: ConstructorParameters<typeof ValidateKey>
  ) {
    super(...parts);
  }

  override execute(input: ValidateKeyInput): Promise<KeyPrincipal> {
    return this.tracing.span('keygate.key.validate', 'internal', {}, async (span) => {
      try {
        const principal = await super.execute(input);
        span.set({
          'keygate.key.outcome': 'valid',
          'keygate.key.prefix': displayPrefixOf(input.rawKey),
          'keygate.user.id': principal.userId,
        });
        return principal;
      } catch (error) {
        span.set({ 'keygate.key.outcome': error instanceof InvalidApiKeyError ? 'invalid' : 'error' });
        throw error;
      }
    });
  }
}
