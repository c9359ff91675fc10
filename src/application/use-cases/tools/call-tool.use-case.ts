import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors';
import { InsufficientScopeError } from '../../../domain/errors/insufficient-scope.error';
import { UnknownToolError } from '../../../domain/errors/unknown-tool.error';
import { isResource, Resource, ScopeSet } from '../../../domain/scope';
import { ResourceStore } from '../../ports/resource-store.port';
import { AuthorizeToolCall } from './authorize-tool-call.use-case';
import { runItemAction } from './built-in/item-actions';
import { runRecordAction } from './built-in/record-actions';
import { ANY_DATA, ResourcePolicy } from './built-in/resource-policy';
import { MAX_RESULT_RECORD_BYTES } from './built-in/result-limits';
import { parseToolCommand } from './built-in/tool-command';
import { failed, succeeded, ToolOutcome } from './tool-outcome';

export interface CallToolInput {
  userId: string;
  scopes: ScopeSet;
  name: string;
  arguments?: Record<string, unknown>;
  /**
   * The most bytes of records' JSON the result may hold, MAX_RESULT_RECORD_BYTES
   * when left out; a caller sharing one answer among several results passes less.
   */
  recordBytes?: number;
}

/** Runs a tool of a registered upstream server; null when the caller has no tool of that name. */
export type ExternalToolRunner = (userId: string, name: string, args: Record<string, unknown> | undefined) => Promise<ToolOutcome | null>;

/**
 * Runs one tool call for a key's user. Throws UnknownToolError and
 * InsufficientScopeError (nothing runs then); every other expected failure is
 * a ToolOutcome with isError.
 */
export class CallTool {
  constructor(
    private readonly store: ResourceStore,
    private readonly authorize: AuthorizeToolCall,
    private readonly policies: Partial<Record<Resource, ResourcePolicy>> = {},
    private readonly runExternal: ExternalToolRunner = async () => null,
  ) {}

  async execute(input: CallToolInput): Promise<ToolOutcome> {
    const decision = await this.authorize.execute(input);
    if (decision.kind === 'unknown') throw new UnknownToolError(input.name);
    if (decision.kind === 'denied') throw new InsufficientScopeError(decision.scopes.join(' '));
    if (!isResource(input.name)) {
      const outcome = await this.runExternal(input.userId, input.name, input.arguments);
      if (!outcome) throw new UnknownToolError(input.name);
      return outcome;
    }
    try {
      const command = parseToolCommand(input.name, input.arguments);
      const policy = this.policies[command.resource] ?? ANY_DATA;
      const budget = input.recordBytes ?? MAX_RESULT_RECORD_BYTES;
      const value = command.subresource === null
        ? await runRecordAction(this.store, input.userId, command, policy, budget)
        : await runItemAction(this.store, input.userId, command, budget);
      return succeeded(value);
    } catch (error) {
      if (error instanceof ValidationError || error instanceof NotFoundError) return failed(error.message);
      if (error instanceof ConflictError) return failed(error.message);
      throw error;
    }
  }
}
