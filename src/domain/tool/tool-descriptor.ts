/** What a caller may be shown of a tool, and the scopes needed to see it. */
export interface ToolDescriptor {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** Every listed scope must be allowed for the tool to be visible; empty means anyone. */
  requiredScopes: readonly string[];
}
