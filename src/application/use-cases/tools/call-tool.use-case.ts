import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors';
import { Resource } from '../../../domain/scope';
import { ExternalTools } from '../../ports/external-tools.port';
import { ResourceStore } from '../../ports/resource-store.port';
import { ToolTarget } from './authorize-tool-call.use-case';
import { runItemAction } from './built-in/item-actions';
import { runRecordAction } from './built-in/record-actions';
import { ANY_DATA, ResourcePolicy } from './built-in/resource-policy';
import { parseToolCommand } from './built-in/tool-command';
import { failed, succeeded, ToolOutcome } from './tool-outcome';

export interface CallToolInput {
  userId: string;
  /** What AuthorizeToolCall found when it allowed these same arguments. */
  target: ToolTarget;
  arguments?: Record<string, unknown>;
}

/** What resource groups add to the generic record rules; a group left out takes any data and shows all of it. */
export type ResourcePolicies = Partial<Record<Resource, ResourcePolicy>>;

/**
 * Runs one tool call for a key's user. It does not authorize: a caller asks
 * AuthorizeToolCall first and hands over the target it allowed, with the same
 * arguments. A built-in tool's value is domain values for the edge to render;
 * every expected failure is an error outcome.
 */
export class CallTool {
  constructor(
    private readonly store: ResourceStore,
    private readonly policies: ResourcePolicies,
    private readonly external: ExternalTools,
  ) {}

  async execute(input: CallToolInput): Promise<ToolOutcome> {
    const { target } = input;
    if (target.kind === 'external') return this.external.run(target.tool, input.arguments);
    try {
      const command = parseToolCommand(target.resource, input.arguments);
      const policy = this.policies[command.resource] ?? ANY_DATA;
      const value = command.subresource === null
        ? await runRecordAction(this.store, input.userId, command, policy)
        : await runItemAction(this.store, input.userId, command);
      return succeeded(value);
    } catch (error) {
      if (error instanceof ValidationError || error instanceof NotFoundError) return failed(error.message);
      if (error instanceof ConflictError) return failed(error.message);
      throw error;
    }
  }
}
