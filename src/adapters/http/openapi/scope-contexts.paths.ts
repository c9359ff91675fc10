import { idParameter, json, jsonBody, noContent, operation } from './operation';
import { arrayOf, ref, Schema } from './schema-parts';

const BODY_ERRORS = [400, 401, 413, 415, 503] as const;

/** GET / and GET /:id for anyone, POST / PATCH / DELETE for admins: catalog.router.ts. */
function catalog(tag: string, path: string, item: string, input: string, what: string): Record<string, Schema> {
  const name = item.charAt(0).toLowerCase() + item.slice(1);
  return {
    [path]: {
      get: operation({ tag, operationId: `list${item}s`, summary: `List ${what}s`, ok: { 200: json(`Every ${what}.`, arrayOf(ref(item))) }, errors: [401, 503] }),
      post: operation({
        tag, operationId: `create${item}`, summary: `Create a ${what} (admin)`, requestBody: jsonBody(ref(input)),
        ok: { 201: json(`The ${what}.`, ref(item)) }, errors: [...BODY_ERRORS, 403, 409],
      }),
    },
    [`${path}/{id}`]: {
      parameters: [idParameter],
      get: operation({ tag, operationId: `get${item}`, summary: `Show a ${what}`, ok: { 200: json(`The ${what}.`, ref(item)) }, errors: [400, 401, 404, 503] }),
      patch: operation({
        tag, operationId: `update${item}`, summary: `Change any of a ${what}'s fields (admin)`,
        requestBody: jsonBody({ ...ref(input), description: 'Any of the fields.' }),
        ok: { 200: json(`The ${what}.`, ref(item)) }, errors: [...BODY_ERRORS, 403, 404, 409],
      }),
      delete: operation({
        tag, operationId: `delete${item}`, summary: `Delete a ${what} (admin); its sessions end`,
        description: name === 'agentRole' ? '409 for a system role.' : undefined,
        ok: { 204: noContent('Deleted.') }, errors: [400, 401, 403, 404, 409, 503],
      }),
    },
  };
}

const tag = 'Scopes and contexts';

export const scopeContextPaths: Record<string, Schema> = {
  '/api/v1/scopes': {
    get: operation({ tag, operationId: 'listScopes', summary: 'The catalog of the 12 scopes', ok: { 200: json('The catalog.', arrayOf(ref('ScopeCatalogEntry'))) }, errors: [401] }),
  },
  ...catalog(tag, '/api/v1/agent-roles', 'AgentRole', 'AgentRoleInput', 'agent role'),
  ...catalog(tag, '/api/v1/mode-tool-configs', 'ModeToolConfig', 'ModeToolConfigInput', 'mode tool config'),
  '/api/v1/mode-sessions': {
    post: operation({
      tag, operationId: 'startModeSession', summary: 'Start a mode session (owned by the caller)', requestBody: jsonBody(ref('StartModeSession')),
      ok: { 201: json('The session and its effective scopes.', ref('ModeSession')) }, errors: [...BODY_ERRORS, 404],
    }),
  },
  '/api/v1/mode-sessions/{id}': {
    parameters: [idParameter],
    get: operation({
      tag, operationId: 'getModeSession', summary: 'Show a session (owner or admin)',
      ok: { 200: json('The session.', ref('ModeSession')) }, errors: [400, 401, 404, 503],
    }),
    delete: operation({
      tag, operationId: 'endModeSession', summary: 'End a session (owner or admin)',
      ok: { 204: noContent('Ended.') }, errors: [400, 401, 404, 503],
    }),
  },
  '/api/v1/tool-sets': {
    post: operation({
      tag, operationId: 'buildToolSet', summary: "An agent's tools: the role's scopes, widened by a session's mode",
      description: '400 when the session belongs to another role.', requestBody: jsonBody(ref('ToolSetRequest')),
      ok: { 200: json('The effective scopes and the tools they see.', ref('ToolSet')) }, errors: [...BODY_ERRORS, 404],
    }),
  },
};
