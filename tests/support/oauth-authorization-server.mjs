// A real OAuth 2.1 authorization server (oidc-provider 9) for tests, run in a
// child process by oauth-authorization-server.ts: oidc-provider is ESM-only
// and this jest runs CommonJS, and a child keeps Koa and the provider's
// globals out of the test's process. Its options arrive as JSON in argv[2];
// it prints one JSON line ({ issuer, jwks }) once it listens, and stops when
// its parent closes stdin.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, createLocalJWKSet } from 'jose';
import Provider from 'oidc-provider';
import { Agent } from 'undici';

const options = JSON.parse(process.argv[2] ?? '{}');
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const RESOURCE_SCOPES = options.resourceScopes ?? 'mcp:tools mcp:read';
const OIDC_SCOPES = new Set(['openid', 'offline_access']);

async function signingKeys() {
  const keys = [];
  for (const [alg, kid] of [
    ['RS256', 'rs'],
    ['ES256', 'es'],
  ]) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    keys.push({ ...(await exportJWK(privateKey)), alg, kid, use: 'sig' });
  }
  return keys;
}

function publicJwks(keys) {
  return { keys: keys.map(({ d, p, q, dp, dq, qi, ...pub }) => pub) };
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const issuer = origin;
const keys = await signingKeys();
const jwks = publicJwks(keys);

function resourceServer(audience) {
  return {
    audience,
    scope: RESOURCE_SCOPES,
    accessTokenTTL: options.accessTokenTtl ?? 3600,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: 'ES256' } },
  };
}

// The CIMD document is fetched over https from a loopback server whose CA only the test knows.
const cimdAgent = options.cimdCa ? new Agent({ connect: { ca: options.cimdCa } }) : undefined;

const provider = new Provider(issuer, {
  clients: options.clients ?? [],
  jwks: { keys },
  cookies: { keys: ['oauth-authorization-server-test'] },
  findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  rotateRefreshToken: true,
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: { AccessToken: options.accessTokenTtl ?? 3600 },
  ...(cimdAgent ? { fetch: (url, init) => fetch(url, { ...init, dispatcher: cimdAgent }) } : {}),
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    revocation: { enabled: true },
    clientIdMetadataDocument: { enabled: Boolean(options.cimdCa), ack: 'draft-02' },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => resourceServer(indicator),
    },
  },
});

// RFC 8693: the subject token is an access token this server signed; the new
// token is for `audience` (or `resource`), on behalf of the same subject.
provider.registerGrantType(
  TOKEN_EXCHANGE,
  async (ctx) => {
    const { subject_token: subjectToken, subject_token_type: subjectType, audience, resource, scope } = ctx.oidc.params;
    const fail = (error, description) => {
      ctx.status = 400;
      ctx.body = { error, error_description: description };
    };
    if (subjectType !== ACCESS_TOKEN_TYPE) return fail('invalid_request', 'unsupported subject_token_type');
    let payload;
    try {
      ({ payload } = await jwtVerify(subjectToken, createLocalJWKSet(jwks), { issuer }));
    } catch {
      return fail('invalid_grant', 'subject_token is not valid');
    }
    const target = audience ?? resource;
    if (!target) return fail('invalid_target', 'audience or resource is required');
    const token = new provider.AccessToken({
      accountId: payload.sub,
      client: ctx.oidc.client,
      gty: 'token-exchange',
      scope: scope ?? payload.scope,
    });
    token.resourceServer = resourceServer(target);
    const value = await token.save();
    ctx.body = {
      access_token: value,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: token.expiration,
      ...(token.scope ? { scope: token.scope } : {}),
    };
  },
  ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'audience', 'resource', 'requested_token_type', 'scope'],
);

// The login and consent page, without a browser: the account is the
// X-Test-Account header of this request (alice when absent), and every scope
// and resource asked for is granted, unless X-Test-Deny is sent.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (req.headers['x-test-deny']) {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user said no' });
    return;
  }
  const accountId = String(req.headers['x-test-account'] ?? 'alice');
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: details.params.client_id });
  const missing = details.prompt.details ?? {};
  const asked = String(details.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  const oidc = [...(missing.missingOIDCScope ?? []), ...asked.filter((s) => OIDC_SCOPES.has(s))];
  if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.url?.startsWith('/interaction/')) {
    interaction(req, res).catch((error) => {
      res.statusCode = 500;
      res.end(String(error?.message ?? error));
    });
    return;
  }
  callback(req, res);
});

process.stdout.write(`${JSON.stringify({ issuer, jwks, id: randomUUID() })}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
