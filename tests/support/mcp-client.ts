import http from 'node:http';
import { Express } from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenLoopback } from './listen-loopback';

/** The app on a real loopback port, as MCP clients reach it. */
export async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  const { url, close } = await listenLoopback(server);
  return { url: `${url}/mcp`, close };
}

/** An official SDK client connected (initialize + initialized) with the key in a header. */
export async function connectClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'keygate-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
