import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { UpstreamView } from '../../application/ports/upstream-view.port';
import type { AuthorizeForwardedMcpRequestInput } from '../../application/use-cases/forward-auth/authorize-forwarded-mcp-request.use-case';
import type { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import type { Actor } from '../../domain/actor';
import type { McpSession } from '../../domain/mcp-session';
import type { Scope } from '../../domain/scope';

/**
 * Everything a middleware chain puts on `res.locals`, declared once. Express
 * merges it into every response's `locals` (the `Locals` interface below), so
 * writing a wrong type fails typecheck and reading needs no cast. Each field
 * is set by one middleware and read by what runs after it; the accessors
 * beside the setters (principalOf, actorOf, messagesOf, viewOf, sessionOf)
 * say what a missing one means.
 */
export interface ResponseLocals {
  /** The key, or with OAuth on /mcp the access token's grant: api-key-auth.ts, mcp/oauth/mcp-oauth.ts. */
  principal?: KeyPrincipal;
  /** The user behind a REST request's access token, with the request's origin: access-token-auth.ts. */
  actor?: Actor;
  /** A POST /mcp body as JSON-RPC messages: mcp/json-rpc-body.ts. */
  messages?: JSONRPCMessage[];
  /** On /mcp/servers/<name>, that endpoint's view of the upstreams: mcp/server-view.ts. */
  view?: UpstreamView;
  /** The live client session Mcp-Session-Id names: mcp/sessions/mcp-session-edge.ts. */
  session?: McpSession;
  /** A 2026-07-28 request whose session check waits until its era is known: mcp/mcp.controller.ts. */
  sessionDeferred?: boolean;
  /** /authz: the scope the proxied route needs, null for any valid key: http/controllers/forward-auth.controller.ts. */
  requiredScope?: Scope | null;
  /** /authz: the forwarded MCP request its headers describe, null when they name no server. */
  mcpRequest?: Omit<AuthorizeForwardedMcpRequestInput, 'principal'> | null;
}

declare global {
  // Express's own hook for typing res.locals (express-serve-static-core): an interface merged by name.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Locals extends ResponseLocals {}
  }
}
