import { Container } from 'inversify';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { AuthorizeForwardedMcpRequest } from '../../application/use-cases/forward-auth/authorize-forwarded-mcp-request.use-case';
import { AuthorizeForwardedRequest } from '../../application/use-cases/forward-auth/authorize-forwarded-request.use-case';
import { AuthorizeToolCall } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { IntrospectKey } from '../../application/use-cases/introspect-key/introspect-key.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { ForwardAuthController } from '../../adapters/http/controllers/forward-auth.controller';
import { IntrospectionController } from '../../adapters/http/controllers/introspection.controller';
import { UsageGate } from '../../adapters/edge/usage-gate';
import { TOKENS } from './tokens';

/**
 * Keys checked for other services: /authz (on /mcp's ValidateKey, key cache
 * and usage gate, so a proxy sees exactly what /mcp would) and RFC 7662
 * introspection. IntrospectKey reads through the same cached repository but
 * never touches last_used_at.
 */
export function bindForwardAuth(c: Container): void {
  c.bind(AuthorizeForwardedRequest).toConstantValue(new AuthorizeForwardedRequest());
  // With ?server=, the same view and tool gate as /mcp/servers/<server>, and its pins.
  c.bind(AuthorizeForwardedMcpRequest).toResolvedValue(
    (views: FindServerView, tools: AuthorizeToolCall, pins: ToolPins) => new AuthorizeForwardedMcpRequest(views, tools, pins),
    [FindServerView, AuthorizeToolCall, ToolPins],
  );
  c.bind(ForwardAuthController).toResolvedValue(
    (validate: ValidateKey, usage: UsageGate, authorize: AuthorizeForwardedRequest, authorizeMcp: AuthorizeForwardedMcpRequest) =>
      new ForwardAuthController(validate, usage, authorize, authorizeMcp),
    [ValidateKey, UsageGate, AuthorizeForwardedRequest, AuthorizeForwardedMcpRequest],
  );
  c.bind(IntrospectKey).toResolvedValue(
    (keys: ApiKeyRepository, hasher: KeyHasher, clock: Clock) => new IntrospectKey(keys, hasher, clock),
    [TOKENS.ApiKeyRepository, TOKENS.KeyHasher, TOKENS.Clock],
  );
  c.bind(IntrospectionController).toResolvedValue((introspect: IntrospectKey) => new IntrospectionController(introspect), [IntrospectKey]);
}
