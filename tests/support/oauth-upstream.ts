import { AsyncLocalStorage } from 'node:async_hooks';
import { createPublicKey, JsonWebKey, verify } from 'node:crypto';
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { listenLoopback } from './listen-loopback';
import { OAuthAuthorizationServer } from './oauth-authorization-server';

export interface OAuthUpstream {
  url: string;
  /** The subject of every request whose token it accepted, in order. */
  subjects: string[];
  /** Every bearer token it was sent, accepted or not (tests look for them elsewhere). */
  tokens: string[];
  /** How many requests it refused with 401. */
  refused: number;
  stop(): Promise<void>;
}

/**
 * An SDK v2 MCP server that is an OAuth protected resource of `as`: without
 * a token, or with one not signed by `as`, expired or for another audience
 * (`aud` must be its own MCP URL, RFC 8707), a 401 naming its RFC 9728
 * metadata. Its `whoami` tool answers the token's subject.
 */
export async function startOAuthUpstream(as: OAuthAuthorizationServer): Promise<OAuthUpstream> {
  const state: OAuthUpstream = { url: '', subjects: [], tokens: [], refused: 0, stop: async () => undefined };
  const subject = new AsyncLocalStorage<string>();
  const handler = createMcpHandler(
    () => {
      const server = new Server({ name: 'oauth-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', async () => ({
        tools: [{ name: 'whoami', description: 'Says whose token came', inputSchema: { type: 'object' } }],
      }));
      server.setRequestHandler('tools/call', async () => ({
        content: [{ type: 'text', text: `you are ${subject.getStore() ?? 'nobody'}` }],
      }));
      return server;
    },
    { legacy: 'reject' },
  );
  const mcp = toNodeHandler(handler);
  let origin = '';
  const httpServer = http.createServer(
    (req, res) =>
      void (async () => {
        let raw = '';
        for await (const chunk of req) raw += chunk;
        if (req.url === '/.well-known/oauth-protected-resource/mcp') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          return void res.end(
            JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [as.issuer], scopes_supported: ['mcp:tools'] }),
          );
        }
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (token) state.tokens.push(token);
        const sub = token === undefined ? null : subjectOf(token, as, `${origin}/mcp`);
        if (sub === null) {
          state.refused += 1;
          res.writeHead(401, { 'WWW-Authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
          return void res.end();
        }
        state.subjects.push(sub);
        await subject.run(sub, () => mcp(req, res, raw === '' ? undefined : (JSON.parse(raw) as unknown)));
      })(),
  );
  const loopback = await listenLoopback(httpServer);
  origin = loopback.url;
  state.url = `${origin}/mcp`;
  state.stop = loopback.close;
  return state;
}

/** The token's `sub` when `as` signed it for `audience` and it has not expired; else null. */
function subjectOf(token: string, as: OAuthAuthorizationServer, audience: string): string | null {
  const [head, body, signature] = token.split('.');
  if (signature === undefined) return null;
  const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg: string; kid?: string };
  const jwk = as.jwks.keys.find((key) => header.kid === undefined || key.kid === header.kid);
  if (!jwk) return null;
  const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  const data = Buffer.from(`${head}.${body}`);
  const sig = Buffer.from(signature, 'base64url');
  const ok =
    header.alg === 'RS256'
      ? verify('sha256', data, key, sig)
      : header.alg === 'PS256'
        ? verify('sha256', data, { key, padding: 6, saltLength: 32 }, sig)
        : header.alg === 'ES256'
          ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig)
          : false;
  if (!ok) return null;
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as { sub?: string; aud?: string | string[]; exp?: number };
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(audience) || (claims.exp ?? 0) * 1000 <= Date.now()) return null;
  return claims.sub ?? null;
}
