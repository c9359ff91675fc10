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

/**
 * The definition a pinnedText was made from, or null when the text is not
 * one (not JSON, no name, an inputSchema that is not an object, or a field of
 * the wrong kind): a kept definition read back.
 */
export function definitionFrom(text: string): ToolDefinition | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(parsed)) return null;
  const { name, title, description, inputSchema, outputSchema, annotations } = parsed;
  if (typeof name !== 'string' || !isObject(inputSchema)) return null;
  if (!(title === undefined || typeof title === 'string') || !(description === undefined || typeof description === 'string')) return null;
  if (!(outputSchema === undefined || isObject(outputSchema)) || !(annotations === undefined || isObject(annotations))) return null;
  return {
    name,
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    inputSchema,
    ...(outputSchema !== undefined && { outputSchema }),
    ...(annotations !== undefined && { annotations }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
