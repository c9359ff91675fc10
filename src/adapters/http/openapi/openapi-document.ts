import { apiKeyPaths } from './api-keys.paths';
import { auditEventPaths } from './audit-events.paths';
import { documentPaths, introspectionPaths, secretScanningPaths } from './edge-paths';
import { dtoSchemas } from './dto-schemas';
import { mcpServerPaths } from './mcp-servers.paths';
import { toolRulePaths } from './tool-rules.paths';
import { explainPaths } from './explain.paths';
import { approvalPaths } from './approvals.paths';
import { usagePaths } from './usage.paths';
import { problemResponseComponents, problemResponses } from './responses';
import { scopeContextPaths } from './scope-contexts.paths';
import { Schema } from './schema-parts';

const DESCRIPTION = `
keygate issues user-scoped API keys and gates MCP tools by their scopes. This document describes every
route under \`/api/v1\` and \`/oauth/introspect\`; the end-to-end tests check every answer they receive
against it (status, content type, body), so it cannot drift from the code.

**Errors** are \`application/problem+json\` (RFC 9457): \`type\` (\`urn:keygate:problem:<slug>\`), \`title\`,
\`status\`, \`detail\`, and on a 400 \`errors\` naming each field. An unexpected 500 says nothing of its cause
and is a bug, so no operation lists it. Node answers 431 itself, without a body, for oversized headers.

**Requests that match no operation** (\`x-unmatched-requests\`): under a prefix that needs a JWT, 401 first;
otherwise \`404 route-not-found\`.

**Not described as operations here:**
- \`/mcp\` and \`/mcp/servers/{name}\`: the MCP Streamable HTTP endpoint (JSON-RPC), authenticated by an API key
  (\`Authorization: Bearer svc_…\` or \`X-API-Key\`).
- \`/authz\` (and every path and method under it): forward auth for NGINX \`auth_request\`, Traefik ForwardAuth
  and Envoy \`ext_authz\`. The key as on /mcp; the required scope from \`?scope=\` or \`X-Keygate-Required-Scope\`.
  Bodiless answers: 200 with \`X-Keygate-User-Id\`, \`X-Keygate-Key-Id\` and \`X-Keygate-Scopes\`; 400 bad scope;
  401 bad key; 403 scope missing; 429 failed-validation limit or the key's rate limit.
  For an MCP server keygate does not proxy, \`?server=\` or \`X-Keygate-Mcp-Server\` names the key owner's server
  record and the forwarded \`MCP-Protocol-Version\` (2026-07-28 or later), \`Mcp-Method\` and \`Mcp-Name\` headers are
  judged as /mcp/servers/{name} would: 400 missing or untrusted headers; 403 a tools/call the key may not make (tool
  scopes, a changed pinned definition); 404 no server of that name for the key's owner.
- \`/healthz\`, \`/readyz\`, \`/metrics\` (operations), and \`/docs\` (this document in Swagger UI).
`.trim();

const NOT_MODIFIED: Schema = {
  description:
    'A GET with `If-None-Match: *` (RFC 9110 section 13.1.2: a current representation exists), answered by Express without a body.',
};

/** Every GET that answers 200 may answer 304 instead (Express's conditional GET). */
function withNotModified(paths: Record<string, Schema>): Record<string, Schema> {
  for (const item of Object.values(paths)) {
    const responses = (item.get as { responses?: Record<string, Schema> } | undefined)?.responses;
    if (responses?.['200'] && !responses['304']) responses['304'] = { $ref: '#/components/responses/NotModified' };
  }
  return paths;
}

/** Built once: the document is data, and the same object is served and checked. */
export const openApiDocument: Schema = {
  openapi: '3.1.0',
  // OpenAPI 3.1's own dialect (JSON Schema 2020-12 plus its keywords); Swagger UI warns on /docs about any other.
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  info: { title: 'keygate', version: '1', description: DESCRIPTION },
  security: [{ userJwt: [] }],
  tags: [
    { name: 'API keys' },
    { name: 'Scopes and contexts', description: 'Agent roles, mode tool configs, mode sessions and tool sets (spec 4.6).' },
    { name: 'Audit trail' },
    { name: 'Upstream MCP servers' },
    { name: 'Tool rules', description: "Rules on the built-in tools' calls; a server record's are its tool_rules." },
    { name: 'Explain', description: 'Why a key can or cannot use a tool, read without spending anything (issue 28).' },
    { name: 'Approvals', description: 'Calls a require_approval rule holds, for a person to approve or deny (issue 28).' },
    { name: 'Usage', description: 'Tool calls counted per key, tool and outcome, with latency (issue 29).' },
    { name: 'Leak reports' },
    { name: 'Introspection' },
    { name: 'Reference' },
  ],
  paths: withNotModified({
    ...apiKeyPaths,
    ...scopeContextPaths,
    ...auditEventPaths,
    ...mcpServerPaths,
    ...toolRulePaths,
    ...explainPaths,
    ...approvalPaths,
    ...usagePaths,
    ...secretScanningPaths,
    ...introspectionPaths,
    ...documentPaths,
  }),
  'x-unmatched-requests': {
    description:
      'Any method or path under /api/v1 or /oauth/introspect that no operation here serves: 401 under a prefix that needs a JWT, ' +
      '400 `malformed-path` when the path holds a malformed percent-encoding where a route has a parameter, else 404 `route-not-found`.',
    responses: problemResponses([400, 401, 404]),
  },
  components: {
    schemas: dtoSchemas(),
    responses: { ...problemResponseComponents, NotModified: NOT_MODIFIED },
    securitySchemes: {
      userJwt: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          "The identity provider's access token (RS256 or ES256, with `exp`); `sub` is the user id, role `admin` makes an admin.",
      },
      apiKeyBearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'svc_ + 64 hex',
        description: 'A keygate API key, for `/mcp` and `/authz` only: no operation in this document takes one.',
      },
      apiKeyHeader: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'The same key in its own header, for `/mcp` and `/authz` only; both headers present and different is a 401.',
      },
      scannerSignature: {
        type: 'apiKey',
        in: 'header',
        name: 'Github-Public-Key-Signature',
        description: "A secret scanner's signature of the raw body, with `Github-Public-Key-Identifier` naming its key.",
      },
    },
  },
};
