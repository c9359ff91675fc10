const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/**
 * A 2026-07-28 result as a 2025 client gets it: without the fields of the
 * newer revision (resultType, caching hints, the upstream's serverInfo),
 * whose caching hints speak for the upstream, not for keygate's own answer.
 */
export function asLegacyResult(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result;
  if (_meta === null || typeof _meta !== 'object') return rest;
  const { [SERVER_INFO_META]: _info, ...meta } = _meta as Record<string, unknown>;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}
