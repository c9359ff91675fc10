/**
 * What a tool call produced. A failure inside the tool (bad arguments, an
 * unknown record) is an outcome too, not an exception: MCP reports it to the
 * model as a result with isError so it can correct itself.
 */
export type ToolOutcome =
  | { kind: 'value'; value: Record<string, unknown> }
  | { kind: 'error'; message: string }
  /** An upstream server's own result, passed through as it came. */
  | { kind: 'relayed'; result: Record<string, unknown> };

export const succeeded = (value: Record<string, unknown>): ToolOutcome => ({ kind: 'value', value });
export const failed = (message: string): ToolOutcome => ({ kind: 'error', message });
export const relayed = (result: Record<string, unknown>): ToolOutcome => ({ kind: 'relayed', result });
