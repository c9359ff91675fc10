import { canonicalJson } from '../canonical-json';

/** What an MCP server says a tool is: the fields a pin covers. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The MCP spec's bound on a tool name (2025-11-25: 1 to 128 characters); a longer name cannot be pinned. */
export const MAX_PINNED_NAME_LENGTH = 128;
/** Deeper schemas are not hashed: canonicalising is recursive, and no real schema nests this far. */
export const MAX_DEFINITION_DEPTH = 64;

/**
 * The text whose SHA-256 pins a definition: its six fields as canonical JSON
 * (keys sorted at every level, absent fields left out), so the order in
 * which an upstream writes its keys changes nothing. Null when the
 * definition nests deeper than MAX_DEFINITION_DEPTH.
 */
export function pinnedText(tool: ToolDefinition): string | null {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  const definition = { name, title, description, inputSchema, outputSchema, annotations };
  return depthWithin(definition, MAX_DEFINITION_DEPTH) ? canonicalJson(definition) : null;
}

function depthWithin(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth === 0) return false;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.every((child) => depthWithin(child, depth - 1));
}
