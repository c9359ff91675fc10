import { idParameter, json, jsonBody, noContent, noStore, operation, queryParameter } from './operation';
import { ApiKeyDto, CreatedApiKeyDto, RolledApiKeyDto } from '../dto/api-key.dto';
import { CreateApiKeyDto } from '../dto/create-api-key.dto';
import { RollApiKeyDto, UpdateApiKeyDto } from '../dto/update-api-key.dto';
import { schemaRef } from './dto-schemas';
import { arrayOf, Schema, uuid } from './schema-parts';

const tag = 'API keys';
/** Every route with a JSON body also answers 413 (over 64 KiB) and 415 (not JSON). */
const BODY_ERRORS = [400, 401, 413, 415, 503] as const;

export const apiKeyPaths: Record<string, Schema> = {
  '/api/v1/api-keys': {
    get: operation({
      tag,
      operationId: 'listApiKeys',
      summary: 'List non-revoked keys, newest first',
      description: 'Expired keys are listed; a rolled key until its overlap ends. An admin may name another user.',
      parameters: [queryParameter('user_id', "Admins only: that user's keys (403 for anyone else naming another user).", uuid)],
      ok: { 200: json('The keys.', arrayOf(schemaRef(ApiKeyDto))) },
      errors: [400, 401, 403, 503],
    }),
    post: operation({
      tag,
      operationId: 'createApiKey',
      summary: 'Create a key; the raw key is shown only in this answer',
      description: '`scopes` absent or `null` is full access. 409 past `MAX_KEYS_PER_USER`.',
      requestBody: jsonBody(schemaRef(CreateApiKeyDto)),
      ok: { 201: json('The key, with its raw value.', schemaRef(CreatedApiKeyDto), noStore) },
      errors: [...BODY_ERRORS, 403, 409],
    }),
  },
  '/api/v1/api-keys/{id}': {
    parameters: [idParameter],
    get: operation({
      tag,
      operationId: 'getApiKey',
      summary: 'One key, as listed',
      description:
        'Also a revoked key, or a rolled one past its overlap (`revoked_at`, `replaced_by`), so its owner can still read its audit trail. ' +
        "404 for an unknown id and, for anyone but an admin, another user's key.",
      ok: { 200: json('The key.', schemaRef(ApiKeyDto)) },
      errors: [400, 401, 404, 503],
    }),
    patch: operation({
      tag,
      operationId: 'updateApiKey',
      summary: 'Edit name, scopes, expiry, rate limit or quota',
      description:
        '`expires_at: null` clears the expiry, `quota: null` removes the quota; `scopes: null` is refused. ' +
        '409 for a rolled key (`replaced_by` set): edit its replacement instead.',
      requestBody: jsonBody(schemaRef(UpdateApiKeyDto)),
      ok: { 200: json('The key as listed.', schemaRef(ApiKeyDto)) },
      errors: [...BODY_ERRORS, 404, 409],
    }),
    delete: operation({
      tag,
      operationId: 'revokeApiKey',
      summary: 'Revoke a key (soft delete)',
      ok: { 204: noContent('Revoked; the key is refused on every replica from now on.') },
      errors: [400, 401, 404, 503],
    }),
  },
  '/api/v1/api-keys/{id}/roll': {
    parameters: [idParameter],
    post: operation({
      tag,
      operationId: 'rollApiKey',
      summary: 'Replace a key by a new one with the same name, scopes, expiry and limits',
      description:
        'The old key keeps working for `grace_seconds` (default 0: revoked at once). 409 for a key already rolled or expired, ' +
        'and, with a grace, past `MAX_KEYS_PER_USER` (both keys count until the grace ends).',
      requestBody: jsonBody(schemaRef(RollApiKeyDto), false),
      ok: { 201: json('The new key, with its raw value.', schemaRef(RolledApiKeyDto), noStore) },
      errors: [...BODY_ERRORS, 404, 409],
    }),
  },
};
