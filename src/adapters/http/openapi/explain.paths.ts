import { ExplainRequestDto, KeyToolsDto, ToolExplanationDto } from '../dto/explain.dto';
import { idParameter, json, jsonBody, operation, queryParameter } from './operation';
import { schemaRef } from './dto-schemas';
import { Schema } from './schema-parts';

const tag = 'Explain';

export const explainPaths: Record<string, Schema> = {
  '/api/v1/authz/explain': {
    post: operation({
      tag,
      operationId: 'explainToolCall',
      summary: "Why can (or can't) this key call this tool: the decision and each step in order",
      description:
        'The steps a tools/call on /mcp meets, each judged: key state, the tool, scope (required vs granted), pin, each rule, ' +
        'rate limit and quota (remaining), approval. Read-only: no upstream is contacted (upstream tools are known from their ' +
        'pins), no request is counted and no credit taken, nothing is audited. An unknown tool is a refusal that says so. ' +
        "404 for an unknown key id and, for anyone but an admin, another user's key.",
      requestBody: jsonBody(schemaRef(ExplainRequestDto)),
      ok: { 200: json('The decision and its steps.', schemaRef(ToolExplanationDto)) },
      errors: [400, 401, 404, 413, 415, 503],
    }),
  },
  '/api/v1/api-keys/{id}/tools': {
    parameters: [idParameter],
    get: operation({
      tag,
      operationId: 'listKeyTools',
      summary: "Every tool the built-ins and the key owner's MCP servers offer, visible or hidden for this key",
      description:
        "Visible as the key's tools/list on /mcp shows it; a hidden one names the first step that hides it (`key`, `scope`, `pin`) " +
        'and why. Rules judge each call and hide nothing: explain a call for them. Upstream tools as keygate pinned them from ' +
        "the server's listings; no server is contacted. 404 as for GET /api/v1/api-keys/{id}.",
      parameters: [
        queryParameter('limit', '1–500, default 500.', { type: 'integer', minimum: 1, maximum: 500 }),
        queryParameter('cursor', "The previous page's `next_cursor`.", { type: 'string' }),
      ],
      ok: { 200: json('One page of tools: built-ins first, then each server tool by name.', schemaRef(KeyToolsDto)) },
      errors: [400, 401, 404, 503],
    }),
  },
};
