import { DomainError } from './domain-error';
import { clipInput } from './error-bounds';

/**
 * No resource at that URI for the caller: not in the `keygate://<server>/`
 * form, no server of that name, hidden by its scopes, or unknown upstream.
 * All four read the same, so the answer tells nothing about hidden ones.
 */
export class UnknownResourceError extends DomainError {
  readonly code = 'MCP_RESOURCE.UNKNOWN';

  constructor(readonly uri: string) {
    super(`Resource not found: ${clipInput(uri)}`);
  }
}

/** No prompt or resource template of that name for the caller (prompts/get, completion/complete refs); same rule as above. */
export class UnknownReferenceError extends DomainError {
  readonly code = 'MCP_REFERENCE.UNKNOWN';

  constructor(
    readonly kind: 'prompt' | 'resource template',
    readonly reference: string,
  ) {
    super(`Unknown ${kind}: ${clipInput(reference)}`);
  }
}

/** An upstream MCP server failed, passed a limit or was refused; the message is safe to show (UpstreamRefusal's rule). */
export class UpstreamFailedError extends DomainError {
  readonly code = 'UPSTREAM.FAILED';
}
