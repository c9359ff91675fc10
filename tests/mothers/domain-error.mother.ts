import {
  ConflictError,
  DatabaseUnavailableError,
  ErrorCode,
  ErrorWithCode,
  ForbiddenError,
  InsufficientScopeError,
  InvalidAccessTokenError,
  InvalidApiKeyError,
  InvalidSignatureError,
  NotFoundError,
  QuotaExhaustedError,
  RateLimitedError,
  SigningKeysUnavailableError,
  UnknownToolError,
  ValidationError,
} from '../../src/domain/errors';

/** One typical error per code; keyed by ErrorCode, so a new code needs one here before the map tests typecheck. */
export const DomainErrorMother: { readonly [C in ErrorCode]: () => ErrorWithCode<C> } = {
  'VALIDATION.FAILED': () => ValidationError.single('name', 'must not be blank'),
  'ACCESS_TOKEN.INVALID': () => new InvalidAccessTokenError('token expired'),
  'API_KEY.INVALID': () => new InvalidApiKeyError(),
  'ACCESS.FORBIDDEN': () => new ForbiddenError('Only admins may name another user'),
  'SCOPE.INSUFFICIENT': () => new InsufficientScopeError(['agents:write', 'chat:read']),
  'RESOURCE.NOT_FOUND': () => new NotFoundError('API key', '5f0c6d9e-4a51-4f7e-9d1b-2b8a3c4d5e6f'),
  'TOOL.UNKNOWN': () => new UnknownToolError('weather'),
  'STATE.CONFLICT': () => new ConflictError('The key limit is reached'),
  'DATABASE.UNAVAILABLE': () => new DatabaseUnavailableError({ cause: new Error('connect ECONNREFUSED 127.0.0.1:5432') }),
  'SIGNATURE.INVALID': () => new InvalidSignatureError(),
  'SIGNING_KEYS.UNAVAILABLE': () => new SigningKeysUnavailableError(42),
  'RATE_LIMIT.EXCEEDED': () => new RateLimitedError(100, 60, 17),
  'QUOTA.EXHAUSTED': () => new QuotaExhaustedError(1),
};
