import type { ApprovalRequiredError } from './approval-required.error';
import type { ConflictError } from './conflict.error';
import type { ConnectionRequiredError } from './connection-required.error';
import type { DatabaseUnavailableError } from './database-unavailable.error';
import type { ErrorCode } from './error-code';
import type { ForbiddenError } from './forbidden.error';
import type { InsufficientScopeError } from './insufficient-scope.error';
import type { InvalidAccessTokenError } from './invalid-access-token.error';
import type { InvalidHeaderFieldError } from './invalid-header-field.error';
import type { InvalidApiKeyError } from './invalid-api-key.error';
import type { InvalidSignatureError } from './invalid-signature.error';
import type { NotFoundError } from './not-found.error';
import type { QuotaExhaustedError } from './quota-exhausted.error';
import type { RateLimitedError } from './rate-limited.error';
import type { SigningKeysUnavailableError } from './signing-keys-unavailable.error';
import type { SubscriptionLimitError } from './subscription-limit.error';
import type { UnknownToolError } from './unknown-tool.error';
import type { UnknownReferenceError, UnknownResourceError, UpstreamFailedError } from './unknown-upstream-item.error';
import type { ValidationError } from './validation.error';

/** Every concrete domain error; an edge's entry for a code reads that error's own fields through ErrorWithCode. */
export type KnownDomainError =
  | ValidationError
  | InvalidHeaderFieldError
  | InvalidAccessTokenError
  | InvalidApiKeyError
  | ForbiddenError
  | InsufficientScopeError
  | NotFoundError
  | UnknownToolError
  | UnknownResourceError
  | UnknownReferenceError
  | UpstreamFailedError
  | SubscriptionLimitError
  | ConnectionRequiredError
  | ApprovalRequiredError
  | ConflictError
  | DatabaseUnavailableError
  | InvalidSignatureError
  | SigningKeysUnavailableError
  | RateLimitedError
  | QuotaExhaustedError;

/** The error class that carries code `C`. */
export type ErrorWithCode<C extends ErrorCode> = Extract<KnownDomainError, { code: C }>;

/** Fails the typecheck when a code has no class above (its map entries would otherwise take `never`). */
type Holds<T extends true> = T;
export type EveryCodeHasAClass = Holds<[Exclude<ErrorCode, KnownDomainError['code']>] extends [never] ? true : false>;
