import { OAuthHttp } from '../../src/adapters/oauth-client/oauth-http';
import { OAuthUpstreamAuthorization } from '../../src/adapters/oauth-client/oauth-upstream-authorization';
import { pinnedAgent } from '../../src/adapters/mcp/upstream/pinned-agent';
import { UpstreamAddressGuard } from '../../src/adapters/mcp/upstream/upstream-address-guard';
import {
  ClientRegistration,
  DiscoveredAuthorization,
  PendingAuthorization,
  UpstreamAuthorizationError,
  UpstreamTokenSet,
} from '../../src/application/ports/upstream-authorization.port';
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

/** The rejection of `promise`, which must reject (one that resolves fails the test); mostly the client's UpstreamAuthorizationError. */
export function failureOf<E = UpstreamAuthorizationError>(promise: Promise<unknown>): Promise<E> {
  return promise.then(
    () => {
      throw new Error('resolved');
    },
    (error: unknown) => error as E,
  );
}

export interface OAuthClientFixtureOptions {
  /** Start the protected resource (startProtectedResource) too; true unless a file serves its own. */
  resource?: boolean;
  /** Discover the resource's authorization (through its well-known URL) once, for every test. */
  discover?: boolean;
  /** Then register keygate with the given client (GIVEN_CLIENT), once, for every test. */
  register?: boolean;
  /** The CA the authorization server trusts for Client ID Metadata Documents, read when it starts. */
  cimdCa?: () => string;
}

/** What a file of OAuth client tests shares, each part set once its beforeAll ran. */
export interface OAuthClientFixture {
  readonly client: OAuthUpstreamAuthorization;
  readonly as: OAuthAuthorizationServer;
  readonly resource: ProtectedResource;
  readonly discovered: DiscoveredAuthorization;
  readonly registered: ClientRegistration;
}

/**
 * The setup every file of OAuth client tests repeats, as jest hooks of the
 * calling file: the authorization server, the protected resource guarded by
 * it, keygate's client (built at once, with the default options), and with
 * `discover`/`register` the discovery and registration the tests start from;
 * stopped after the file. Hooks run in order, so a beforeAll declared before
 * this call (a CA for `cimdCa`) runs first, and one after it sees the parts.
 */
export function oauthClientFixture(options: OAuthClientFixtureOptions = {}): OAuthClientFixture {
  const client = oauthClient();
  const parts: {
    as?: OAuthAuthorizationServer;
    resource?: ProtectedResource;
    discovered?: DiscoveredAuthorization;
    registered?: ClientRegistration;
  } = {};
  beforeAll(async () => {
    const as = (parts.as = await startAuthorizationServer(options.cimdCa?.()));
    if (options.resource === false) return;
    const resource = (parts.resource = await startProtectedResource(as));
    if (!options.discover && !options.register) return;
    const discovered = (parts.discovered = await client.discover(`${resource.origin}/mcp`));
    if (!options.register) return;
    parts.registered = await client.register({
      authorizationServer: discovered.authorizationServer,
      given: GIVEN_CLIENT,
      redirectUri: REDIRECT_URI,
      clientName: 'keygate',
    });
  });
  afterAll(async () => {
    await parts.resource?.stop();
    await parts.as?.stop();
  });
  const part = <K extends keyof typeof parts>(name: K): NonNullable<(typeof parts)[K]> => {
    const value = parts[name];
    if (value === undefined) throw new Error(`oauthClientFixture: no ${name} (not asked for, or read before beforeAll)`);
    return value;
  };
  return {
    client,
    get as() {
      return part('as');
    },
    get resource() {
      return part('resource');
    },
    get discovered() {
      return part('discovered');
    },
    get registered() {
      return part('registered');
    },
  };
}
