import { idParameter, json, jsonBody, noContent, operation } from './operation';
import { AgentRoleDto, AgentRoleInputDto, AgentRoleUpdateDto } from '../dto/agent-role.dto';
import { ModeSessionDto, StartModeSessionDto } from '../dto/mode-session.dto';
import { ModeToolConfigDto, ModeToolConfigInputDto, ModeToolConfigUpdateDto } from '../dto/mode-tool-config.dto';
import { DtoClass, schemaName } from '../dto/wire-decorators';
import { ScopeCatalogEntryDto, ToolSetDto, ToolSetRequestDto } from '../dto/tool-set.dto';
import { schemaRef } from './dto-schemas';
import { arrayOf, Schema } from './schema-parts';

const BODY_ERRORS = [400, 401, 413, 415, 503] as const;

interface CatalogDtos {
  item: DtoClass;
  create: DtoClass;
  update: DtoClass;
}

/** GET / and GET /:id for anyone, POST / PATCH / DELETE for admins: catalog.router.ts. */
function catalog(tag: string, path: string, dtos: CatalogDtos, what: string): Record<string, Schema> {
  const item = schemaName(dtos.item);
  const name = item.charAt(0).toLowerCase() + item.slice(1);
  return {
    [path]: {
      get: operation({
        tag,
        operationId: `list${item}s`,
        summary: `List ${what}s`,
        ok: { 200: json(`Every ${what}.`, arrayOf(schemaRef(dtos.item))) },
        errors: [401, 503],
      }),
      post: operation({
        tag,
        operationId: `create${item}`,
        summary: `Create a ${what} (admin)`,
        requestBody: jsonBody(schemaRef(dtos.create)),
        ok: { 201: json(`The ${what}.`, schemaRef(dtos.item)) },
        errors: [...BODY_ERRORS, 403, 409],
      }),
    },
    [`${path}/{id}`]: {
      parameters: [idParameter],
      get: operation({
        tag,
        operationId: `get${item}`,
        summary: `Show a ${what}`,
        ok: { 200: json(`The ${what}.`, schemaRef(dtos.item)) },
        errors: [400, 401, 404, 503],
      }),
      patch: operation({
        tag,
        operationId: `update${item}`,
        summary: `Change any of a ${what}'s fields (admin)`,
        requestBody: jsonBody(schemaRef(dtos.update)),
        ok: { 200: json(`The ${what}.`, schemaRef(dtos.item)) },
        errors: [...BODY_ERRORS, 403, 404, 409],
      }),
      delete: operation({
        tag,
        operationId: `delete${item}`,
        summary: `Delete a ${what} (admin); its sessions end`,
        description: name === 'agentRole' ? '409 for a system role.' : undefined,
        ok: { 204: noContent('Deleted.') },
        errors: [400, 401, 403, 404, 409, 503],
      }),
    },
  };
}

const tag = 'Scopes and contexts';

export const scopeContextPaths: Record<string, Schema> = {
  '/api/v1/scopes': {
    get: operation({
      tag,
      operationId: 'listScopes',
      summary: 'The catalog of the 12 scopes',
      ok: { 200: json('The catalog.', arrayOf(schemaRef(ScopeCatalogEntryDto))) },
      errors: [401],
    }),
  },
  ...catalog(tag, '/api/v1/agent-roles', { item: AgentRoleDto, create: AgentRoleInputDto, update: AgentRoleUpdateDto }, 'agent role'),
  ...catalog(
    tag,
    '/api/v1/mode-tool-configs',
    { item: ModeToolConfigDto, create: ModeToolConfigInputDto, update: ModeToolConfigUpdateDto },
    'mode tool config',
  ),
  '/api/v1/mode-sessions': {
    post: operation({
      tag,
      operationId: 'startModeSession',
      summary: 'Start a mode session (owned by the caller)',
      requestBody: jsonBody(schemaRef(StartModeSessionDto)),
      ok: { 201: json('The session and its effective scopes.', schemaRef(ModeSessionDto)) },
      errors: [...BODY_ERRORS, 404],
    }),
  },
  '/api/v1/mode-sessions/{id}': {
    parameters: [idParameter],
    get: operation({
      tag,
      operationId: 'getModeSession',
      summary: 'Show a session (owner or admin)',
      ok: { 200: json('The session.', schemaRef(ModeSessionDto)) },
      errors: [400, 401, 404, 503],
    }),
    delete: operation({
      tag,
      operationId: 'endModeSession',
      summary: 'End a session (owner or admin)',
      ok: { 204: noContent('Ended.') },
      errors: [400, 401, 404, 503],
    }),
  },
  '/api/v1/tool-sets': {
    post: operation({
      tag,
      operationId: 'buildToolSet',
      summary: "An agent's tools: the role's scopes, widened by a session's mode",
      description: '400 when the session belongs to another role.',
      requestBody: jsonBody(schemaRef(ToolSetRequestDto)),
      ok: { 200: json('The effective scopes and the tools they see.', schemaRef(ToolSetDto)) },
      errors: [...BODY_ERRORS, 404],
    }),
  },
};
