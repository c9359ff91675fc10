/** The 12 scopes of spec section 2.3: one read and one write per resource group. */
export const RESOURCES = ['agents', 'projects', 'routines', 'mcp_servers', 'chat', 'models'] as const;
export type Resource = (typeof RESOURCES)[number];

export const PERMISSIONS = ['read', 'write'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface ScopeDescription {
  scope: string;
  resource: Resource;
  permission: Permission;
  covers: string;
}

const COVERS: Record<string, string> = {
  'agents:read': 'Read agents and agent subresources (prompt, scopes, abilities, context blocks, MCP assignments)',
  'agents:write': 'Modify agents and agent subresources',
  'projects:read': 'Read projects plus project-scoped tasks, documents, executions and graph queries',
  'projects:write': 'Modify projects plus project-scoped tasks, documents and executions',
  'routines:read': 'Read routines plus steps, edges and councils',
  'routines:write': 'Modify routines plus steps, edges and councils',
  'mcp_servers:read': 'Read MCP server configurations',
  'mcp_servers:write': 'Modify MCP server configurations',
  'chat:read': 'Read chat sessions and messages',
  'chat:write': 'Send chat notifications and other write-side chat actions',
  'models:read': 'Read model configurations',
  'models:write': 'Modify model configurations',
};

export const SCOPE_CATALOG: readonly ScopeDescription[] = RESOURCES.flatMap((resource) =>
  PERMISSIONS.map((permission) => {
    const scope = `${resource}:${permission}`;
    return { scope, resource, permission, covers: COVERS[scope] };
  }),
);

export function isResource(value: string): value is Resource {
  return (RESOURCES as readonly string[]).includes(value);
}
