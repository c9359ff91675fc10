import { Resource } from '../scope';

/** Actions of the built-in tools; read actions need `:read`, all others `:write`. */
export const READ_ACTIONS = ['get', 'list', 'search', 'query'] as const;
export const WRITE_ACTIONS = ['create', 'update', 'delete', 'assign', 'unassign', 'execute'] as const;
export const ACTIONS = [...READ_ACTIONS, ...WRITE_ACTIONS] as const;
export type Action = (typeof ACTIONS)[number];

export const SUBRESOURCES: Record<Resource, readonly string[]> = {
  agents: ['prompt', 'scopes', 'abilities', 'context_blocks', 'mcp'],
  projects: ['tasks', 'documents', 'executions', 'graph'],
  routines: ['steps', 'edges', 'councils'],
  mcp_servers: [],
  chat: ['sessions', 'messages'],
  models: [],
};

export function isReadAction(action: string): boolean {
  return (READ_ACTIONS as readonly string[]).includes(action);
}

/** Scope checking uses the top-level resource only (spec 4.4); the subresource never matters. */
export function requiredScopeFor(resource: Resource, action: string): string {
  return `${resource}:${isReadAction(action) ? 'read' : 'write'}`;
}
