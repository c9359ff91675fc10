import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OtlpReceiver, ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver';
import { eventually } from '../support/replica';
import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { serviceFixture } from '../support/service-fixture';
import { startUpstream, UpstreamMcpServer } from '../support/upstream-mcp-server';
import { startV2Upstream, V2Upstream } from '../support/v2-upstream';

jest.setTimeout(120_000);

/**
 * The service as users run it (dist, its own process) with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at a receiver in the test, which decodes the OTLP/HTTP protobuf exports.
 */
const fixture = serviceFixture('tracing');
const V2026 = '2026-07-28';
const SPAN = { INTERNAL: 1, SERVER: 2, CLIENT: 3 };
const ARGUMENT_SECRET = `argument-secret-${randomUUID()}`;
const HEADER_SECRETS = { Authorization: `Bearer header-secret-${randomUUID()}`, 'X-Upstream-Token': `header-secret-${randomUUID()}` };

let receiver: OtlpReceiver;
let upstream: V2Upstream;
/** A 2025 upstream (SDK v1): keygate's contact with it is initialize, initialized, then the call. */
let legacy: UpstreamMcpServer;
let service: ServiceProcess;
let modulesFile: string;
let scratch: string;
let jwt: string;
let key: string;
const started: ServiceProcess[] = [];

/** Writes the paths of every module the process loaded as it exits: what tracing loads, or does not. */
function moduleListing(): { NODE_OPTIONS: string; KEYGATE_TEST_MODULES_OUT: string; file: string } {
  const file = path.join(scratch, `modules-${randomUUID()}.txt`);
  return { NODE_OPTIONS: `--require ${path.join(scratch, 'list-modules.js')}`, KEYGATE_TEST_MODULES_OUT: file, file };
}

async function startWith(env: Record<string, string>): Promise<ServiceProcess> {
  const process = startService(fixture.env({ LOG_LEVEL: 'warn', MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8', ...env }));
  started.push(process);
  return waitForListening(process);
}

async function stop(process: ServiceProcess): Promise<void> {
  process.child.kill('SIGTERM');
  expect(await process.exited).toBe(0);
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'keygate-tracing-'));
  writeFileSync(
    path.join(scratch, 'list-modules.js'),
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.KEYGATE_TEST_MODULES_OUT, Object.keys(require.cache).join('\\n')));\n",
  );
  [receiver, upstream, legacy] = await Promise.all([startOtlpReceiver(), startV2Upstream('modern'), startUpstream('legacy')]);
  const listing = moduleListing();
  modulesFile = listing.file;
  service = await startWith({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    NODE_OPTIONS: listing.NODE_OPTIONS,
    KEYGATE_TEST_MODULES_OUT: listing.KEYGATE_TEST_MODULES_OUT,
  });
  jwt = fixture.idp.token({ sub: randomUUID() });
  const auth = { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${service.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body: '{"name":"traced"}' });
  key = ((await created.json()) as { raw_key: string }).raw_key;
  const server = await fetch(`${service.baseUrl}/api/v1/mcp-servers`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'modern', url: upstream.url, headers: HEADER_SECRETS }),
  });
  expect(server.status).toBe(201);
  const legacyServer = await fetch(`${service.baseUrl}/api/v1/mcp-servers`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'legacy', url: legacy.url }),
  });
  expect(legacyServer.status).toBe(201);
});
afterAll(async () => {
  started.forEach((process) => process.child.kill('SIGKILL'));
  await Promise.all([receiver?.stop(), upstream?.stop(), legacy?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function callTool(
  baseUrl: string,
  id: number,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
  meta?: Record<string, unknown>,
  tool = 'modern__echo',
) {
  const modern = meta !== undefined;
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'X-API-Key': key,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(modern && { 'MCP-Protocol-Version': V2026, 'Mcp-Method': 'tools/call', 'Mcp-Name': tool }),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        ...(modern && {
          _meta: { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta },
        }),
      },
    }),
  });
}

/**
 * The MCP span of the call with this JSON-RPC id, once its trace has been exported: its upstream call, and
 * the HTTP server span unless the MCP span continues a 2026 request's _meta (a trace of its own).
 */
async function traceOf(id: number, withHttp = true): Promise<{ mcp: ReceivedSpan; trace: ReceivedSpan[] }> {
  let mcp: ReceivedSpan | undefined;
  await eventually(() => {
    mcp = receiver.spans.find((s) => s.kind === SPAN.SERVER && s.attributes['jsonrpc.request.id'] === String(id));
    const http =
      mcp && receiver.spans.find((s) => s.traceId === mcp!.traceId && s.kind === SPAN.SERVER && s.attributes['http.request.method']);
    const client = mcp && receiver.spans.find((s) => s.traceId === mcp!.traceId && isUpstreamCall(s));
    return (http !== undefined || !withHttp) && client !== undefined;
  }, 20_000).catch((error: Error) => {
    throw new Error(
      `${error.message}; spans: ${JSON.stringify(receiver.spans.map((s) => [s.name, s.kind, s.traceId.slice(0, 6), s.attributes['jsonrpc.request.id']]))}`,
    );
  });
  return { mcp: mcp!, trace: receiver.spans.filter((s) => s.traceId === mcp!.traceId) };
}

/** keygate's client span of an upstream call (the pg instrumentation's query spans are client spans too). */
const isUpstreamCall = (span: ReceivedSpan) => span.kind === SPAN.CLIENT && span.attributes['mcp.method.name'] !== undefined;
const isQuery = (span: ReceivedSpan) => span.attributes['db.system'] === 'postgresql' || span.attributes['db.system.name'] === 'postgresql';

function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at = byId.get(span.parentSpanId); at !== undefined; at = byId.get(at.parentSpanId)) {
    if (at === ancestor) return true;
  }
  return false;
}

const traceparentParts = (value: string | undefined) => /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(value ?? '')?.slice(1) ?? [];

describe('traces over OTLP/HTTP', () => {
  it('exports the span tree of a tools/call through an upstream, which gets the trace id in its traceparent and _meta', async () => {
    expect((await callTool(service.baseUrl, 101, { text: ARGUMENT_SECRET })).status).toBe(200);
    const { mcp, trace } = await traceOf(101);
    const http = trace.find((s) => s.kind === SPAN.SERVER && s.parentSpanId === '')!;
    expect(http).toBeDefined();
    expect(mcp).toMatchObject({
      name: 'tools/call modern__echo',
      attributes: expect.objectContaining({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'modern__echo',
        'gen_ai.operation.name': 'execute_tool',
        'jsonrpc.request.id': '101',
      }),
    });
    expect(descendsFrom(mcp, http, trace)).toBe(true);
    const validation = trace.find((s) => s.name === 'keygate.key.validate')!;
    expect(validation.attributes).toMatchObject({
      'keygate.key.outcome': 'valid',
      'keygate.key.prefix': key.slice(0, 8),
      'keygate.key.cache': expect.stringMatching(/^(hit|miss)$/),
      'keygate.user.id': expect.any(String),
    });
    expect(descendsFrom(validation, http, trace)).toBe(true);
    expect(mcp.attributes['keygate.user.id']).toBe(validation.attributes['keygate.user.id']);
    const authorization = trace.find((s) => s.name === 'keygate.tool.authorize')!;
    expect(authorization.attributes).toMatchObject({ 'keygate.authz.decision': 'allow', 'gen_ai.tool.name': 'modern__echo' });
    expect(descendsFrom(authorization, mcp, trace)).toBe(true);
    // One client span for the upstream call (its HTTP requests get none of their own); the others are queries.
    const clients = trace.filter(isUpstreamCall);
    expect(clients.map((s) => s.name)).toEqual(['tools/call echo']);
    expect(trace.filter((s) => s.kind === SPAN.CLIENT && !isUpstreamCall(s) && !isQuery(s))).toEqual([]);
    expect(descendsFrom(clients[0], mcp, trace)).toBe(true);
    const queries = trace.filter(isQuery);
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.every((q) => descendsFrom(q, http, trace))).toBe(true);

    // The upstream's tools/call carried the client span's context, in its traceparent header and its _meta.
    const [headerTrace, headerParent] = traceparentParts(upstream.traceparents.at(-1));
    expect({ headerTrace, headerParent }).toEqual({ headerTrace: mcp.traceId, headerParent: clients[0].spanId });
    const meta = upstream.received.at(-1)?.meta as { traceparent?: string };
    expect(traceparentParts(meta?.traceparent)).toEqual([mcp.traceId, clients[0].spanId]);
  });

  it('sends a 2025 upstream the client span as its tools/call traceparent and in _meta', async () => {
    const before = legacy.seenHeaders.length;
    expect((await callTool(service.baseUrl, 111, { text: 'plain' }, {}, undefined, 'legacy__echo')).status).toBe(200);
    const { mcp, trace } = await traceOf(111);
    const clients = trace.filter(isUpstreamCall);
    expect(clients.map((s) => s.name)).toEqual(['tools/call echo']);
    const sent = legacy.seenHeaders.slice(before).map((headers) => traceparentParts(headers.traceparent as string | undefined));
    // The call's POST carries the client span; the tool list keygate read for the authorization (before the call) carries none.
    expect(sent.at(-1)).toEqual([mcp.traceId, clients[0].spanId]);
    expect(sent.filter((parts) => parts.length > 0)).toEqual([[mcp.traceId, clients[0].spanId]]);
    expect(traceparentParts((legacy.seenMeta.at(-1) as { traceparent?: string })?.traceparent)).toEqual([mcp.traceId, clients[0].spanId]);
  });

  it("gives an upstream's resources/read and prompts/get a client span each, whose context the upstream receives", async () => {
    const post = (id: number, method: string, params: Record<string, unknown>) =>
      fetch(`${service.baseUrl}/mcp/servers/modern`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
    for (const [id, method, params, span] of [
      [121, 'resources/read', { uri: 'file:///notes/a.txt' }, 'resources/read'],
      [122, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } }, 'prompts/get greet'],
    ] as const) {
      const res = await post(id, method, params);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain('"error"');
      const { mcp, trace } = await traceOf(id);
      // Besides the call, a list the answer needs (prompts/list, to know the prompt is the caller's to get) when not cached.
      const clients = trace.filter(isUpstreamCall);
      expect(clients.filter((c) => !c.name.endsWith('/list')).map((c) => c.name)).toEqual([span]);
      const call = clients.find((c) => c.name === span)!;
      expect(call.attributes['mcp.method.name']).toBe(method);
      expect(descendsFrom(call, mcp, trace)).toBe(true);
      const meta = upstream.received.filter((r) => r.method === method).at(-1)?.meta as { traceparent?: string };
      expect(traceparentParts(meta?.traceparent)).toEqual([mcp.traceId, call.spanId]);
    }
  });

  it('continues an incoming traceparent, and on a 2026 request the _meta trace context for the MCP span', async () => {
    const [headerTrace, headerSpan] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
    const traceparent = `00-${headerTrace}-${headerSpan}-01`;
    expect((await callTool(service.baseUrl, 102, { text: 'plain' }, { traceparent })).status).toBe(200);
    const legacy = await traceOf(102);
    expect(legacy.mcp.traceId).toBe(headerTrace);
    expect(legacy.trace.find((s) => s.parentSpanId === headerSpan)?.attributes['http.request.method']).toBe('POST');

    // Both: the HTTP server span continues the header, the MCP span (and what it runs) the _meta trace context.
    const [httpTrace, httpSpan] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
    const [metaTrace, metaSpan] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
    const headers = { traceparent: `00-${httpTrace}-${httpSpan}-01` };
    const answer = await callTool(service.baseUrl, 103, { text: 'plain' }, headers, { traceparent: `00-${metaTrace}-${metaSpan}-01` });
    expect(answer.status).toBe(200);
    const modern = await traceOf(103, false);
    expect({ trace: modern.mcp.traceId, parent: modern.mcp.parentSpanId }).toEqual({ trace: metaTrace, parent: metaSpan });
    expect(modern.mcp.attributes['mcp.protocol.version']).toBe(V2026);
    expect(modern.trace.map((s) => s.name)).toEqual(expect.arrayContaining(['keygate.tool.authorize', 'tools/call echo']));
    await eventually(
      () => receiver.spans.some((s) => s.traceId === httpTrace && s.parentSpanId === httpSpan && s.kind === SPAN.SERVER),
      20_000,
    );
    const sent = upstream.received.at(-1)?.meta as { traceparent?: string };
    const client = modern.trace.find(isUpstreamCall)!;
    expect(traceparentParts(sent?.traceparent)).toEqual([metaTrace, client.spanId]);
  });

  it('records no secret: not the key, the upstream header values, the arguments, a JWT, in a path or a query', async () => {
    await callTool(service.baseUrl, 104, { text: ARGUMENT_SECRET, nested: { token: ARGUMENT_SECRET } });
    await fetch(`${service.baseUrl}/api/v1/api-keys/${key}?access_token=${jwt}`, { headers: { Authorization: `Bearer ${jwt}` } });
    await fetch(`${service.baseUrl}/mcp?access_token=${jwt}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'User-Agent': `agent ${jwt}` },
    });
    await traceOf(104);
    await eventually(() => receiver.spans.some((s) => String(s.attributes['url.path'] ?? '').startsWith('/api/v1/api-keys/')), 20_000);
    const secrets = [key, key.slice(4), ...Object.values(HEADER_SECRETS), ARGUMENT_SECRET, jwt, jwt.split('.')[1]];
    const leaks = receiver.spans.flatMap((span) =>
      span.texts.filter((text) => secrets.some((secret) => text.includes(secret))).map((text) => `${span.name}: ${text.slice(0, 80)}`),
    );
    expect(leaks).toEqual([]);
  });

  it('gives the fast paths (a built-in tools/call, a 2026 tools/list) the same spans', async () => {
    const post = (id: number, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
    expect((await post(201, 'tools/call', { name: 'projects', arguments: { action: 'list' } })).status).toBe(200);
    const envelope = { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': {} };
    const modern = { 'MCP-Protocol-Version': V2026, 'Mcp-Method': 'tools/list' };
    expect((await post(202, 'tools/list', { _meta: envelope }, modern)).status).toBe(200);
    const withSpans = (id: number, names: string[]) => {
      const mcp = receiver.spans.find((s) => s.attributes['jsonrpc.request.id'] === String(id));
      const inTrace = receiver.spans.filter((s) => s.traceId === mcp?.traceId).map((s) => s.name);
      return mcp !== undefined && names.every((name) => inTrace.includes(name)) ? mcp : undefined;
    };
    await eventually(() => withSpans(201, ['keygate.key.validate', 'keygate.tool.authorize', 'POST /mcp']) !== undefined, 20_000);
    expect(withSpans(201, [])?.name).toBe('tools/call projects');
    await eventually(() => withSpans(202, ['keygate.key.validate', 'POST /mcp']) !== undefined, 20_000);
    expect(withSpans(202, [])?.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': V2026 });
  });

  it('records a denied call: the decision on the authorization span, the status as the MCP span error.type', async () => {
    const auth = { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' };
    const body = JSON.stringify({ name: 'reader', scopes: ['projects:read'] });
    const created = await fetch(`${service.baseUrl}/api/v1/api-keys`, { method: 'POST', headers: auth, body });
    const reader = ((await created.json()) as { raw_key: string }).raw_key;
    const denied = await fetch(`${service.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'X-API-Key': reader, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 301,
        method: 'tools/call',
        params: { name: 'projects', arguments: { action: 'delete', id: 'x' } },
      }),
    });
    expect(denied.status).toBe(403);
    let mcp: ReceivedSpan | undefined;
    await eventually(() => (mcp = receiver.spans.find((s) => s.attributes['jsonrpc.request.id'] === '301')) !== undefined, 20_000);
    expect(mcp!.attributes['error.type']).toBe('403');
    const authorization = receiver.spans.find((s) => s.traceId === mcp!.traceId && s.name === 'keygate.tool.authorize');
    expect(authorization?.attributes).toMatchObject({ 'keygate.authz.decision': 'deny', 'keygate.authz.reason': 'scope' });
  });

  it('records an MCP session id hashed, never as it is', async () => {
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tracing-test', version: '1' } };
    const opened = await fetch(`${service.baseUrl}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 401, method: 'initialize', params }),
    });
    const sessionId = opened.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await opened.text();
    const listed = await fetch(`${service.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 402, method: 'tools/list', params: {} }),
    });
    expect(listed.status).toBe(200);
    await listed.text();
    let mcp: ReceivedSpan | undefined;
    await eventually(() => (mcp = receiver.spans.find((s) => s.attributes['jsonrpc.request.id'] === '402')) !== undefined, 20_000);
    expect(mcp!.attributes['mcp.session.id']).toBe(createHash('sha256').update(sessionId).digest('hex').slice(0, 16));
    expect(receiver.spans.filter((s) => s.texts.some((text) => text.includes(sessionId)))).toEqual([]);
  });

  it('loads OpenTelemetry only when tracing is on', async () => {
    const off = moduleListing();
    const quiet = await startWith({ NODE_OPTIONS: off.NODE_OPTIONS, KEYGATE_TEST_MODULES_OUT: off.KEYGATE_TEST_MODULES_OUT });
    expect((await callTool(quiet.baseUrl, 105, { text: 'untraced' })).status).toBe(200);
    await stop(quiet);
    const loaded = readFileSync(off.file, 'utf8').split('\n');
    expect(loaded.some((file) => file.includes(`${path.sep}express${path.sep}`))).toBe(true);
    // prom-client requires @opentelemetry/api (the API alone: no-op, no context store) for its CPU metric's exemplars,
    // as it did before tracing existed; nothing else of OpenTelemetry may load.
    expect(
      loaded.filter((file) => file.includes('@opentelemetry') && !file.includes(`${path.sep}@opentelemetry${path.sep}api${path.sep}`)),
    ).toEqual([]);

    await stop(service);
    expect(readFileSync(modulesFile, 'utf8')).toContain(`${path.sep}@opentelemetry${path.sep}sdk-node${path.sep}`);
  });
});

describe('sampling by OTEL_TRACES_SAMPLER', () => {
  it('exports nothing with always_off, follows traceidratio with its _ARG, and flushes at shutdown', async () => {
    const exported = async (env: Record<string, string>, id: number): Promise<number> => {
      const own = await startOtlpReceiver();
      try {
        // No scheduled export within the test: what arrives was exported by the graceful shutdown.
        const sampled = await startWith({ OTEL_EXPORTER_OTLP_ENDPOINT: own.url, OTEL_BSP_SCHEDULE_DELAY: '600000', ...env });
        expect((await callTool(sampled.baseUrl, id, { text: 'sampled?' })).status).toBe(200);
        await stop(sampled); // the shutdown exports what is left
        return own.spans.length;
      } finally {
        await own.stop();
      }
    };
    expect(await exported({ OTEL_TRACES_SAMPLER: 'always_off' }, 106)).toBe(0);
    expect(await exported({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, 107)).toBe(0);
    expect(await exported({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }, 108)).toBeGreaterThan(0);
  });
});
