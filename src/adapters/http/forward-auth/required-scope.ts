import { Request } from 'express';
import { ValidationError } from '../../../domain/errors';
import { Scope } from '../../../domain/scope';

export const REQUIRED_SCOPE_HEADER = 'x-keygate-required-scope';

/**
 * The one scope the proxied route needs, from `?scope=` or the
 * X-Keygate-Required-Scope header; null when neither names one.
 *
 * A client reaches /authz through the proxy with its own headers (NGINX and
 * Traefik pass them on) and, behind Envoy, its own query string, so either
 * source may be the client's. Both present and different is therefore a 400,
 * never a choice between them: a client can add a requirement, never swap the
 * proxy's for a weaker one. An unknown scope name is a 400 as well: it is a
 * typo in the proxy's configuration, and a 403 would blame every key for it.
 */
export function requiredScopeOf(req: Request): Scope | null {
  const fromQuery = single(req.query.scope, 'scope');
  const fromHeader = single(req.headers[REQUIRED_SCOPE_HEADER], 'X-Keygate-Required-Scope');
  if (fromQuery !== undefined && fromHeader !== undefined && fromQuery !== fromHeader) {
    throw ValidationError.single('scope', 'the query parameter and the X-Keygate-Required-Scope header name different scopes');
  }
  const value = fromQuery ?? fromHeader;
  return value === undefined ? null : Scope.parse(value, fromQuery !== undefined ? 'scope' : 'X-Keygate-Required-Scope');
}

function single(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  // Repeated query parameters arrive as an array; a repeated header is joined with ", " and fails the scope form.
  if (typeof value !== 'string') throw ValidationError.single(field, 'must name exactly one scope');
  if (value === '') throw ValidationError.single(field, 'must name a scope; leave it out to require none');
  return value;
}
