/**
 * What a tool call produced. A failure inside the tool (bad arguments, an
 * unknown record) is an outcome too, not an exception: MCP reports it to the
 * model as a result with isError so it can correct itself.
 */
export type ToolOutcome =
  | { isError: false; value: Record<string, unknown> }
  | { isError: true; message: string };

export const succeeded = (value: Record<string, unknown>): ToolOutcome => ({ isError: false, value });
export const failed = (message: string): ToolOutcome => ({ isError: true, message });
