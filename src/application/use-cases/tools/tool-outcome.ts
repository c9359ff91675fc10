import { ExternalToolOutcome } from '../../ports/external-tools.port';

type Failure = Extract<ExternalToolOutcome, { kind: 'error' }>;
type Relayed = Extract<ExternalToolOutcome, { kind: 'relayed' }>;

/**
 * What a tool call produced. A failure inside the tool (bad arguments, an
 * unknown record) is an outcome too, not an exception: MCP reports it to the
 * model as a result with isError so it can correct itself. An external tool's
 * outcome is its server's own result (`relayed`) or an error.
 */
export type ToolOutcome =
  | { kind: 'value'; value: Record<string, unknown> }
  | ExternalToolOutcome;

export const succeeded = (value: Record<string, unknown>): ToolOutcome => ({ kind: 'value', value });
export const failed = (message: string): Failure => ({ kind: 'error', message });
export const relayed = (result: Record<string, unknown>): Relayed => ({ kind: 'relayed', result });
