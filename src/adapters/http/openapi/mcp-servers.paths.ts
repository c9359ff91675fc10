import { idParameter, json, jsonBody, noContent, operation, queryParameter } from './operation';
import { ApproveToolsDto, McpServerDto, McpServerInputDto, McpServerUpdateDto } from '../dto/mcp-server.dto';
import { McpAuthorizationStartDto, McpConnectionCallbackDto, McpConnectionDto, McpConnectionInputDto } from '../dto/mcp-connection.dto';
import { schemaRef } from './dto-schemas';
import { arrayOf, Schema, uuid } from './schema-parts';

const tag = 'Upstream MCP servers';
const BODY_ERRORS = [400, 401, 403, 413, 415, 503] as const;
const actFor = queryParameter('user_id', 'Admins only: act for this user (403 for anyone else naming another user).', uuid);
const actForById = queryParameter(
  'user_id',
  "Admins only: act for this user (403 for anyone else naming another user). Without it an admin reaches any user's server by its id, " +
    "as with keys; anyone else only their own (another user's server is 404).",
  uuid,
);

export const mcpServerPaths: Record<string, Schema> = {
  '/api/v1/mcp-servers': {
    get: operation({
      tag,
      operationId: 'listMcpServers',
      summary: "The caller's (or, for an admin, the named user's) servers, oldest first, by offset pages",
      parameters: [
        actFor,
        queryParameter('limit', '1–50, default 20.', { type: 'integer', minimum: 1, maximum: 50 }),
        queryParameter('cursor', "From the `Link` header's next page.", { type: 'string' }),
      ],
      ok: {
        200: json('A page of servers.', arrayOf(schemaRef(McpServerDto)), {
          Link: { description: '`<…>; rel="next"` when more follow.', schema: { type: 'string' } },
        }),
      },
      errors: [400, 401, 403, 503],
    }),
    post: operation({
      tag,
      operationId: 'createMcpServer',
      summary: 'Register an upstream MCP server',
      description:
        'The host is checked against the upstream address rule at once (`upstream address not allowed` is a 400). 409 for a name the user already has or past `MAX_MCP_SERVERS_PER_USER`.',
      parameters: [actFor],
      requestBody: jsonBody(schemaRef(McpServerInputDto)),
      ok: {
        201: json('The server.', schemaRef(McpServerDto), { Location: { description: 'The new server.', schema: { type: 'string' } } }),
      },
      errors: [...BODY_ERRORS, 409],
    }),
  },
  '/api/v1/mcp-servers/{id}': {
    parameters: [idParameter, actForById],
    get: operation({
      tag,
      operationId: 'getMcpServer',
      summary: 'Show a server and its tool pins',
      ok: { 200: json('The server.', schemaRef(McpServerDto)) },
      errors: [400, 401, 403, 404, 503],
    }),
    patch: operation({
      tag,
      operationId: 'updateMcpServer',
      summary: 'Change any field, or approve changed tools; a PATCH that fails writes nothing',
      requestBody: jsonBody(schemaRef(McpServerUpdateDto)),
      ok: { 200: json('The server.', schemaRef(McpServerDto)) },
      errors: [...BODY_ERRORS, 404, 409],
    }),
    delete: operation({
      tag,
      operationId: 'deleteMcpServer',
      summary: 'Delete a server and its pins',
      ok: { 204: noContent('Deleted.') },
      errors: [400, 401, 403, 404, 503],
    }),
  },
  '/api/v1/mcp-servers/{id}/approve-tools': {
    parameters: [idParameter, actForById],
    post: operation({
      tag,
      operationId: 'approveMcpServerTools',
      summary: 'Approve the changed definitions of these tools (all or nothing)',
      requestBody: jsonBody(schemaRef(ApproveToolsDto)),
      ok: { 200: json('The server.', schemaRef(McpServerDto)) },
      errors: [...BODY_ERRORS, 404, 409],
    }),
  },
  '/api/v1/mcp-servers/connections/callback': {
    post: operation({
      tag,
      operationId: 'completeMcpConnection',
      summary: 'Complete an oauth connection with the query the authorization server sent the browser back with',
      description:
        "The redirect URI of oauth connections is the console's page `/console/connections/callback` under PUBLIC_URL; the console posts its query here as the signed-in user. The `state` is valid ten minutes, once, and only for the user who began the connection: an authorization someone else began is refused, so a link they send you never connects their account with your upstream grant. Stores the token set encrypted as your connection and records `mcp_connection.created`. A bad, expired, used or someone else's state, or a refused code, is a 400 that stores nothing.",
      requestBody: jsonBody(schemaRef(McpConnectionCallbackDto)),
      ok: { 201: json('The connection.', schemaRef(McpConnectionDto)) },
      errors: [...BODY_ERRORS],
    }),
  },
  '/api/v1/mcp-servers/{id}/connection': {
    parameters: [idParameter, actForById],
    get: operation({
      tag,
      operationId: 'getMcpConnection',
      summary: "The user's connection to the server: its state, never its secret",
      description: "An admin reads it for any user's server; `state` is `not_connected` when there is none.",
      ok: { 200: json('The connection.', schemaRef(McpConnectionDto)) },
      errors: [400, 401, 403, 404, 503],
    }),
    post: operation({
      tag,
      operationId: 'connectMcpServer',
      summary: 'Store your own secret for a user_secret server (replacing any you had), or begin an oauth authorization',
      description:
        "user_secret: sent as `header: prefix + secret` on your calls of its tools, never on anyone else's. oauth (empty body): discovers the upstream's authorization server, registers keygate with it and answers the URL to send your browser to; the authorization server sends it back to the console's callback page, which completes the connection with `POST /api/v1/mcp-servers/connections/callback` as you. 400 for a server of another auth type or an authorization server that cannot be used; 409 when keygate has no public URL (PUBLIC_URL) to be sent back to; only the user the connection belongs to may connect (403 for an admin acting for someone else).",
      requestBody: jsonBody(schemaRef(McpConnectionInputDto)),
      ok: {
        201: json('The connection (user_secret), or the authorization URL (oauth).', {
          oneOf: [schemaRef(McpConnectionDto), schemaRef(McpAuthorizationStartDto)],
        }),
      },
      errors: [...BODY_ERRORS, 404, 409],
    }),
    delete: operation({
      tag,
      operationId: 'disconnectMcpServer',
      summary: 'Forget the connection (404 when there is none)',
      ok: { 204: noContent('Disconnected.') },
      errors: [400, 401, 403, 404, 503],
    }),
  },
};
