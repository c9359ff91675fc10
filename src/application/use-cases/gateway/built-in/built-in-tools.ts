import { RESOURCES, Resource, SCOPE_CATALOG } from '../../../../domain/scope';
import { ACTIONS, SUBRESOURCES, ToolDescriptor } from '../../../../domain/tool';

/** What a caller cannot guess from the schema alone. */
const MORE: Partial<Record<Resource, string>> = {
  mcp_servers:
    ' A record registers an upstream MCP server: data.name, url, headers, auth, tool_scopes, tool_rules, resource_scopes, prompt_scopes.' +
    ' auth is {type: static} (the headers, the default), oauth, token_exchange or user_secret {header, prefix}.' +
    ' get shows tool_pins; an upstream tool whose definition changed is withheld until an update approves it' +
    ' with data.approve_tools: [name, or {name, sha256} to approve only the definition you inspected].',
};

/**
 * One tool per resource group. Each is visible with the resource's `:read`
 * (which its `:write` implies); each call is checked again per action.
 */
export const BUILT_IN_TOOLS: readonly ToolDescriptor[] = RESOURCES.map(describe);

function describe(resource: Resource): ToolDescriptor {
  const read = SCOPE_CATALOG.find((s) => s.scope === `${resource}:read`)!;
  const subresources = SUBRESOURCES[resource];
  const properties: Record<string, unknown> = {
    action: {
      type: 'string',
      enum: [...ACTIONS],
      description: 'get, list, search and query need :read; create, update, delete, assign, unassign and execute need :write',
    },
    id: { type: 'string', description: 'Id of the record the action applies to' },
    data: { type: 'object', description: 'Fields for create, update, search or query', additionalProperties: true },
  };
  if (subresources.length > 0) {
    properties.subresource = { type: 'string', enum: [...subresources], description: 'Optional subresource of the record' };
  }
  return {
    name: resource,
    title: resource.replace('_', ' '),
    description: `Work with ${resource.replace('_', ' ')}. ${read.covers}; writes need ${resource}:write.${MORE[resource] ?? ''}`,
    inputSchema: { type: 'object', properties, required: ['action'], additionalProperties: false },
    // One tool reads and writes (delete included) and touches only keygate's own records.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    requiredScopes: [read.scope],
  };
}
