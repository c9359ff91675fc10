import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeKey, TestKey } from '../support/mcp-keys';
import { connectClient, listen } from '../support/mcp-client';
import { startTestApp, TestApp } from '../support/test-app';
import { RelayUpstream, startRelayUpstream } from '../support/relay-upstream';
import { startV2Upstream, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(60_000);

/**
 * Every pairing of client and upstream revision, through both endpoints:
 * the SDK v2 client pinned to 2026-07-28, the SDK v2 client in `auto` mode
 * and the v1 client (2025-11-25, in a session), in front of a 2026-only
 * upstream (SDK v2, legacy 'reject'), a dual one (SDK v2, both eras) and a
 * 2025-only one (SDK v1). In each, a key scoped to chat:read lists exactly
 * the tools the records' tool_scopes grant it, and the upstream's
 * elicitation and sampling reach the client and its answers the upstream.
 */
const V = '2026-07-28';
type ClientKind = 'pinned 2026' | 'auto' | 'v1';
/** Each upstream's elicitation and sampling tools: the SDK v2 test upstreams name them `ask` and `think`, the v1 relay upstream `elicit` and `sample`. */
const UPSTREAMS = { modern: ['ask', 'think'], dual: ['ask', 'think'], legacy: ['elicit', 'sample'] } as const;
type UpstreamName = keyof typeof UPSTREAMS;

let t: TestApp;
let app: { url: string; close(): Promise<void> };
let modern: V2Upstream;
let dual: V2Upstream;
let legacy: RelayUpstream;
let chat: TestKey;
const closers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  t = await startTestApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', MCP_UPSTREAM_TIMEOUT_MS: '5000' });
  app = await listen(t.app);
  [modern, dual, legacy] = await Promise.all([startV2Upstream('modern'), startV2Upstream('dual'), startRelayUpstream()]);
  const owner = await makeKey(t);
  const full = await connectClient(app.url, { Authorization: `Bearer ${owner.raw}` });
  closers.push(full);
  for (const [name, url] of [
    ['modern', modern.url],
    ['dual', dual.url],
    ['legacy', legacy.url],
  ] as const) {
    const [elicit, sample] = UPSTREAMS[name];
    const data = { name, url, tool_scopes: { [elicit]: ['chat:read'], [sample]: ['chat:read'] } };
    expect((await full.callTool({ name: 'mcp_servers', arguments: { action: 'create', data } })).isError).toBeFalsy();
  }
  chat = await makeKey(t, ['chat:read'], owner.user);
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close().catch(() => undefined)));
  await Promise.all([modern?.stop(), dual?.stop(), legacy?.stop()]);
  await app?.close();
  await t?.close();
});

interface AskedClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

const ELICITED = { action: 'accept', content: { name: 'Ada' } } as const;
const SAMPLED = { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test' } as const;

/** A client of `kind` on `path` that answers elicitation with Ada and sampling with "4", counting what it was asked. */
async function clientOf(kind: ClientKind, path: string, asked: string[]): Promise<AskedClient> {
  const url = new URL(`${app.url}${path}`);
  const requestInit = { headers: { Authorization: `Bearer ${chat.raw}` } };
  if (kind === 'v1') {
    const client = new Client({ name: 'matrix-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => (asked.push('elicitation'), ELICITED));
    client.setRequestHandler(CreateMessageRequestSchema, async () => (asked.push('sampling'), SAMPLED));
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    closers.push(client);
    return client;
  }
  const client = new ClientV2(
    { name: 'matrix-v2', version: '1.0.0' },
    {
      capabilities: { elicitation: {}, sampling: {} },
      versionNegotiation: { mode: kind === 'auto' ? 'auto' : { pin: V } },
    },
  );
  client.setRequestHandler('elicitation/create', async () => (asked.push('elicitation'), ELICITED) as never);
  client.setRequestHandler('sampling/createMessage', async () => (asked.push('sampling'), SAMPLED) as never);
  await client.connect(new TransportV2(url, { requestInit }));
  expect(client.getProtocolEra()).toBe('modern');
  closers.push(client);
  return client;
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content.map((c) => c.text).join('\n');

const CLIENTS: ClientKind[] = ['pinned 2026', 'auto', 'v1'];
const PAIRINGS = CLIENTS.flatMap((kind) =>
  (Object.keys(UPSTREAMS) as UpstreamName[]).flatMap((upstream) => [
    [kind, upstream, '/mcp'] as const,
    [kind, upstream, `/mcp/servers/${upstream}`] as const,
  ]),
);

describe.each(PAIRINGS)('the %s client, the %s upstream, through %s', (kind, upstream, endpoint) => {
  const [elicit, sample] = UPSTREAMS[upstream];
  const path = endpoint.slice('/mcp'.length);
  const named = (tool: string) => (path === '' ? `${upstream}__${tool}` : tool);

  it("lists exactly the tools the key's scopes grant", async () => {
    const tools = (await (await clientOf(kind, path, [])).listTools()).tools.map((tool) => tool.name).sort();
    const granted = (Object.keys(UPSTREAMS) as UpstreamName[]).flatMap((name) => UPSTREAMS[name].map((tool) => `${name}__${tool}`));
    expect(tools).toEqual(path === '' ? ['chat', ...granted].sort() : [elicit, sample].sort());
  });

  it("relays the upstream's elicitation and sampling to the client, and its answers back", async () => {
    const asked: string[] = [];
    const client = await clientOf(kind, path, asked);
    expect(textOf(await client.callTool({ name: named(elicit), arguments: {} }))).toContain('Ada');
    expect(textOf(await client.callTool({ name: named(sample), arguments: {} }))).toContain('"4"');
    expect(asked).toEqual(['elicitation', 'sampling']);
  });
});
