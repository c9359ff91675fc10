import { createHmac, randomUUID, sign } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from '../test-identity-provider';
import { Credential } from './rest-requests';

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const claims = (sub: string) => ({ sub, iss: TEST_ISSUER, aud: TEST_AUDIENCE, exp: Math.floor(Date.now() / 1000) + 3600 });
const bearer = (label: string, token: string): Credential => ({ label, headers: { Authorization: `Bearer ${token}` } });

/** An RS256 JWT of the provider over payload text as given (jsonwebtoken would choke on a __proto__ key). */
function rs256Text(idp: TestIdentityProvider, payload: string): string {
  const key = idp.keys.find((k) => k.alg === 'RS256')!;
  const head = `${b64url({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${b64url(payload)}`;
  return `${head}.${sign('sha256', Buffer.from(head), key.privateKey).toString('base64url')}`;
}

/**
 * Authorization headers for the REST API: the admin and two users, and every
 * way a header can be wrong (no token, other schemes, expired, foreign or
 * unknown keys, alg none, HS256 signed with the public key, claims of the
 * wrong type, oversize). `apiKey` is a raw key, which is not a JWT.
 */
export function restCredentials(idp: TestIdentityProvider, users: { admin: string; a: string; b: string }, apiKey: string): Credential[] {
  const adminToken = idp.token({ sub: users.admin, roles: ['admin'] });
  const userToken = idp.token({ sub: users.a });
  const rsaPublic = idp.keys.find((k) => k.alg === 'RS256')!.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const hs256 = (() => {
    const head = `${b64url({ alg: 'HS256', typ: 'JWT', kid: 'rs-1' })}.${b64url({ ...claims(users.admin), roles: ['admin'] })}`;
    return `${head}.${createHmac('sha256', rsaPublic).update(head).digest('base64url')}`;
  })();
  const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims(users.admin), roles: ['admin'] })}.`;
  const unknownKid = jwt.sign({ sub: users.a }, idp.stranger.privateKey, {
    algorithm: 'RS256',
    keyid: 'no-such-kid',
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    expiresIn: 600,
  });
  return [
    // The real ones, weighted by repetition.
    ...[1, 2, 3].map(() => bearer('admin JWT', adminToken)),
    ...[1, 2, 3].map(() => bearer('user A JWT', userToken)),
    bearer('user B JWT', idp.token({ sub: users.b })),
    bearer('admin ES256 JWT', idp.token({ sub: users.admin, roles: ['admin'], alg: 'ES256' })),
    bearer('fresh user JWT', idp.token({ sub: randomUUID() })),
    { label: 'lower-case bearer admin JWT', headers: { Authorization: `bearer ${adminToken}` } },
    { label: 'admin JWT with extra spaces', headers: { Authorization: `Bearer   ${adminToken}  ` } },
    { label: 'admin JWT and a second word', headers: { Authorization: `Bearer ${adminToken} x` } },
    { label: 'no Authorization', headers: {} },
    { label: 'bare "Bearer"', headers: { Authorization: 'Bearer' } },
    { label: 'Basic credentials', headers: { Authorization: 'Basic dXNlcjpwYXNz' } },
    { label: 'Token scheme', headers: { Authorization: `Token ${userToken}` } },
    { label: 'two Authorization values', headers: { Authorization: `Bearer ${userToken}, Bearer ${adminToken}` } },
    bearer('expired JWT', idp.token({ sub: users.a, expiresIn: -60 })),
    bearer('JWT with sub not a UUID', idp.token({ sub: 'not-a-uuid' })),
    bearer(
      'JWT with numeric sub',
      jwt.sign({ sub: 12345 }, idp.keys[0].privateKey, {
        algorithm: 'RS256',
        keyid: 'rs-1',
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCE,
        expiresIn: 600,
      }),
    ),
    bearer('JWT without sub', idp.token({})),
    bearer('JWT with upper-case sub', idp.token({ sub: users.a.toUpperCase() })),
    bearer('JWT with sub holding NUL', idp.token({ sub: `${users.a}\u0000` })),
    bearer('JWT with roles "admin" as a string', idp.token({ sub: users.a, roles: 'admin' })),
    bearer('JWT with roles [["admin"]]', idp.token({ sub: users.a, roles: [['admin']] })),
    bearer('JWT with roles {"0":"admin"}', idp.token({ sub: users.a, roles: { 0: 'admin', length: 1 } })),
    bearer(
      'JWT with a __proto__ claim holding roles',
      rs256Text(
        idp,
        `{"sub":"${users.a}","__proto__":{"roles":["admin"]},"iss":"${TEST_ISSUER}","aud":"${TEST_AUDIENCE}","exp":${claims(users.a).exp}}`,
      ),
    ),
    bearer('JWT with a 10 KB claim', idp.token({ sub: users.a, extra: { pad: 'x'.repeat(10_000) } })),
    bearer('JWT not yet valid', idp.token({ sub: users.a, extra: { nbf: Math.floor(Date.now() / 1000) + 3600 } })),
    bearer('JWT of another issuer', idp.token({ sub: users.a, issuer: 'https://evil.example/' })),
    bearer('JWT for another audience', idp.token({ sub: users.a, audience: 'other' })),
    bearer('JWT signed by a key not in the JWKS', idp.tokenFromStranger({ sub: users.admin, roles: ['admin'] })),
    bearer('JWT with an unknown kid', unknownKid),
    bearer('alg none JWT', none),
    bearer('HS256 JWT keyed with the public key', hs256),
    bearer('JWT with a tampered signature', `${adminToken.slice(0, -4)}AAAA`),
    bearer('JWT with a tampered payload', adminToken.replace(/\.[^.]+\./, `.${b64url({ ...claims(users.admin), roles: ['admin'] })}.`)),
    bearer('garbage a.b.c', 'a.b.c'),
    bearer('JSON header garbage', `${b64url('{"alg":')}.${b64url('[')}.x`),
    bearer('API key in place of a JWT', apiKey),
    bearer('8 KB garbage token', 'x'.repeat(8_000)),
    bearer('20 KB token (over the header limit)', 'A'.repeat(20_000)),
  ];
}

/** Key headers for /mcp: the two ways to send a good key, and the ways to send a bad one. */
export function mcpCredentials(keys: { full: string; narrow: string; revoked: string }, jwtToken: string): Credential[] {
  const { full, narrow, revoked } = keys;
  return [
    ...[1, 2, 3, 4].map(() => ({ label: 'full-access key', headers: { Authorization: `Bearer ${full}` } })),
    ...[1, 2, 3].map(() => ({ label: 'narrow key', headers: { Authorization: `Bearer ${narrow}` } })),
    { label: 'full-access key in X-API-Key', headers: { 'X-API-Key': full } },
    { label: 'narrow key in X-API-Key', headers: { 'X-API-Key': narrow } },
    { label: 'full-access key in both headers', headers: { Authorization: `Bearer ${full}`, 'X-API-Key': full } },
    { label: 'two different keys', headers: { Authorization: `Bearer ${full}`, 'X-API-Key': narrow } },
    { label: 'lower-case bearer key', headers: { Authorization: `bearer ${narrow}` } },
    { label: 'upper-case key', headers: { Authorization: `Bearer ${full.toUpperCase()}` } },
    { label: 'key with trailing space in X-API-Key', headers: { 'X-API-Key': `${full} ` } },
    { label: 'revoked key', headers: { Authorization: `Bearer ${revoked}` } },
    { label: 'no key', headers: {} },
    { label: 'malformed key', headers: { 'X-API-Key': `svc_${'z'.repeat(64)}` } },
    { label: 'unknown well-formed key', headers: { 'X-API-Key': `svc_${'0'.repeat(64)}` } },
    { label: 'key cut short', headers: { 'X-API-Key': full.slice(0, 20) } },
    { label: 'JWT in place of a key', headers: { Authorization: `Bearer ${jwtToken}` } },
    { label: 'Basic credentials', headers: { Authorization: 'Basic dXNlcjpwYXNz' } },
    { label: '8 KB key', headers: { 'X-API-Key': `svc_${'a'.repeat(8_000)}` } },
  ];
}
