/**
 * What an MCP endpoint of keygate declares in its initialize answer (MCP
 * ServerCapabilities), as far as keygate serves it.
 */
export interface EndpointCapabilities {
  /** Always: tools/list is answered (empty when nothing is visible), and keygate announces tool changes itself (digest per session). */
  tools: { listChanged: true };
  logging?: Record<string, never>;
  resources?: { subscribe?: true; listChanged?: true };
  prompts?: { listChanged?: true };
  completions?: Record<string, never>;
}

/**
 * Everything keygate can serve: /mcp's set, fixed because /mcp federates all
 * of the owner's upstreams, whose number and capabilities change while a
 * session lasts. `subscribe` and `listChanged` travel on the session's GET
 * stream (initialize always opens a session).
 */
export const KEYGATE_CAPABILITIES: EndpointCapabilities = Object.freeze<EndpointCapabilities>({
  tools: { listChanged: true },
  logging: {},
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
});

/**
 * What an upstream whose capabilities are unknown (unreachable, refused, or
 * gone) gets declared: tools, which keygate always answers, and logging,
 * whose logging/setLevel keygate always answers (the level is kept with the
 * session and sent to the upstream once it is reached). Declaring either
 * costs a client nothing when the upstream has none; resources, prompts,
 * completions or subscribe the upstream may lack would invite calls that fail.
 */
export const UNKNOWN_UPSTREAM_CAPABILITIES: EndpointCapabilities = Object.freeze<EndpointCapabilities>({
  tools: { listChanged: true },
  logging: {},
});

/**
 * keygate's set narrowed to what one upstream declared: each capability only
 * when the upstream has it, `subscribe` and `listChanged` only when it
 * declares them (keygate relays the upstream's resources/updated and
 * list_changed, and has none of its own for resources and prompts). keygate
 * itself logs nothing to a client, so logging is the upstream's. Only
 * booleans are kept: nothing an upstream declared is echoed as it came.
 */
export function narrowedTo(declared: Record<string, unknown>): EndpointCapabilities {
  const resources = objectAt(declared, 'resources');
  const prompts = objectAt(declared, 'prompts');
  return {
    tools: { listChanged: true },
    ...(objectAt(declared, 'logging') && { logging: {} }),
    ...(resources && {
      resources: { ...(resources.subscribe === true && { subscribe: true }), ...(resources.listChanged === true && { listChanged: true }) },
    }),
    ...(prompts && { prompts: { ...(prompts.listChanged === true && { listChanged: true }) } }),
    ...(objectAt(declared, 'completions') && { completions: {} }),
  };
}

/** A capability is declared by an object (MCP: `"logging": {}`); anything else is not a declaration. */
function objectAt(declared: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const value = declared[name];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
