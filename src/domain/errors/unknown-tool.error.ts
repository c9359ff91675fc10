import { DomainError } from './domain-error';
import { clipInput } from './error-bounds';

/** No tool of that name exists for the caller (built-in or registered upstream). */
export class UnknownToolError extends DomainError {
  readonly code = 'TOOL.UNKNOWN';

  constructor(readonly tool: string) {
    super(`Unknown tool: ${clipInput(tool)}`);
  }
}
