import { OAuthHttp } from '../../src/adapters/oauth-client/oauth-http';
import { OAuthUpstreamAuthorization } from '../../src/adapters/oauth-client/oauth-upstream-authorization';
import { pinnedAgent } from '../../src/adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../src/adapters/mcp/upstream/upstream-address-guard';
import { PendingAuthorization, UpstreamTokenSet } from '../../src/application/ports/upstream-authorization.port';
import { OAuthAuthorizationServer, TOKEN_EXCHANGE_GRANT } from './oauth-authorization-server';
import { ProtectedResource } from './protected-resource';

/** Never contacted: the authorization server's redirect is read, not followed. */
export const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';
export const GIVEN_CLIENT = { clientId: 'given-client', clientSecret: 'given-client-secret' };
export const EXCHANGE_CLIENT = { clientId: 'exchanger', clientSecret: 'exchanger-secret' };
export const RESOURCE_SCOPES = 'mcp:tools mcp:read';

export interface ClientOptions {
  /** MCP_UPSTREAM_ALLOWLIST; loopback by default. */
  allowlist?: string[];
  production?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** A CA the connections trust, for https on loopback. */
  ca?: string;
}

/** keygate's OAuth client as the service would build it: the pinned, guarded agent of upstream requests. */
export function oauthClient(options: ClientOptions = {}): OAuthUpstreamAuthorization {
  const guard = new UpstreamAddressGuard(options.allowlist ?? ['127.0.0.0/8']);
  const dispatcher = pinnedAgent(guard, 2000, options.ca ? { ca: options.ca } : {});
  const production = options.production ?? false;
  const http = new OAuthHttp({ dispatcher, production, timeoutMs: options.timeoutMs ?? 5000, maxBytes: options.maxBytes ?? 64 * 1024 });
  return new OAuthUpstreamAuthorization({ http, production });
}

/** The authorization server of these tests, knowing the given client and the token-exchange client. */
export function startAuthorizationServer(cimdCa?: string): Promise<OAuthAuthorizationServer> {
  return new OAuthAuthorizationServer().start({
    resourceScopes: RESOURCE_SCOPES,
    ...(cimdCa ? { cimdCa } : {}),
    clients: [
      {
        client_id: GIVEN_CLIENT.clientId,
        client_secret: GIVEN_CLIENT.clientSecret,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      {
        client_id: EXCHANGE_CLIENT.clientId,
        client_secret: EXCHANGE_CLIENT.clientSecret,
        redirect_uris: [],
        grant_types: [TOKEN_EXCHANGE_GRANT],
        response_types: [],
      },
    ],
  });
}

/** A protected resource at `${origin}/mcp` whose 401 names its metadata, guarded by `as`. */
export async function startProtectedResource(as: OAuthAuthorizationServer, scopes = ['mcp:tools']): Promise<ProtectedResource> {
  const resource = await new ProtectedResource().start();
  const metadata = { resource: `${resource.origin}/mcp`, authorization_servers: [as.issuer], scopes_supported: scopes };
  resource.challenge('/mcp', `${resource.origin}/metadata/mcp`);
  resource.json('/metadata/mcp', metadata);
  resource.json('/.well-known/oauth-protected-resource/mcp', metadata);
  return resource;
}

/** The 401's WWW-Authenticate of `url`, as a first MCP request would receive it. */
export async function challengeOf(url: string): Promise<string> {
  const res = await fetch(url, { method: 'POST' });
  await res.body?.cancel();
  return res.headers.get('www-authenticate') ?? '';
}

/** The payload of a JWT, unverified: these tests read what the authorization server put in its own tokens. */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
}

/** A user (`account`) connects: the authorization URL is followed to its callback, whose code is exchanged. */
export async function connect(
  client: OAuthUpstreamAuthorization,
  as: OAuthAuthorizationServer,
  pending: PendingAuthorization,
  account = 'alice',
): Promise<UpstreamTokenSet> {
  const back = await as.authorize(pending.authorizationUrl, pending.redirectUri, { account });
  return client.complete(pending, { code: back.code ?? undefined, state: back.state ?? undefined, iss: back.iss ?? undefined });
}
