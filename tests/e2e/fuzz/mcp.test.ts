import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { mcpCredentials } from '../../support/fuzz/credentials';
import { FuzzApp, startFuzzApp } from '../../support/fuzz/fuzz-app';
import { check } from '../../support/fuzz/contract';
import { FuzzRequest } from '../../support/fuzz/fuzz-request';
import { fuzz } from '../../support/fuzz/fuzz-runner';
import { mcpBody, mcpMessages, oddMcpBody } from '../../support/fuzz/mcp-messages';
import { mcpRequest, ORDINARY_MESSAGES } from '../../support/fuzz/mcp-requests';
import { call, makeKey, rpc } from '../../support/mcp-keys';
import { startUpstream, UpstreamMcpServer } from '../../support/upstream-mcp-server';
import { mcp2026Request, Mcp2026Fixture, modernAnswerProblems } from '../../support/fuzz/mcp-2026-requests';

/**
 * Every method /mcp answers, with generated params, batches, bodies and
 * headers, as a full-access key and a narrow one. Each answer: below 500, at
 * most 64 KiB, and when 4xx, not a row written (api_keys.last_used_at aside:
 * the key is validated before the body is read, so a refused body is still a
 * use of the key; see db-snapshot.ts).
 */
jest.setTimeout(60_000);

let app: FuzzApp;
let fx: Mcp2026Fixture;
let upstream: UpstreamMcpServer;

beforeAll(async () => {
  [app, upstream] = await Promise.all([startFuzzApp({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' }), startUpstream('fuzz')]);
  const { t } = app;
  const user = randomUUID();
  const [full, narrow, revoked] = await Promise.all([
    makeKey(t, [], user),
    makeKey(t, ['projects:read', 'agents:write', 'chat:read'], user),
    makeKey(t, ['projects:read'], user),
  ]);
  await request(t.app)
    .delete(`/api/v1/api-keys/${revoked.id}`)
    .set('Authorization', `Bearer ${t.userToken(user)}`)
    .expect(204);
  const create = async (tool: string, args: Record<string, unknown>) => {
    const res = await rpc(t, full, call(1, tool, { action: 'create', ...args })).expect(200);
    const { record, item } = res.body.result.structuredContent as { record?: { id: string }; item?: { id: string } };
    return (record ?? item)!.id;
  };
  const project = await create('projects', { data: { name: 'fixture', tags: ['a'] } });
  const agent = await create('agents', { data: { name: 'fixture agent' } });
  const routine = await create('routines', { data: {} });
  const task = await create('projects', { subresource: 'tasks', id: project, data: { title: 'task' } });
  const chat = await create('chat', { subresource: 'sessions', id: await create('chat', { data: {} }), data: {} });
  // An upstream for /mcp/servers/files and its namespaced tools, resources and prompts on /mcp (2026 requests).
  await create('mcp_servers', {
    data: { name: 'files', url: upstream.url, tool_scopes: { secret: ['chat:read'] }, prompt_scopes: { vault: ['chat:read'] } },
  });
  fx = {
    server: 'files',
    credentials: mcpCredentials({ full: full.raw, narrow: narrow.raw, revoked: revoked.raw }, t.userToken(user)),
    recordIds: [project, agent, routine, task, chat],
  };
});
afterAll(async () => {
  await app?.close();
  await upstream?.stop();
});

const RUNS = { numRuns: 120, timeLimitMs: 2_000 };
const contract = (req: FuzzRequest) => check(app, req);

describe('fuzzing POST /mcp: no 5xx, no answer over 64 KiB, no row written by a 4xx', () => {
  const m = () => mcpMessages(fx);

  it('headers, credentials and body encodings around ordinary messages', async () => {
    await fuzz('MCP headers', app.baseUrl, mcpRequest(fx, fc.constantFrom(...ORDINARY_MESSAGES), true), contract, RUNS);
  });

  it('initialize, ping, notifications, responses and unknown methods', async () => {
    const { initialize, ping, notification, other } = m();
    await fuzz('MCP lifecycle', app.baseUrl, mcpRequest(fx, fc.oneof(initialize, ping, notification, other)), contract, RUNS);
  });

  it('tools/list with agent_scopes, cursor and _meta', async () => {
    await fuzz('MCP tools/list', app.baseUrl, mcpRequest(fx, m().toolsList), contract, RUNS);
  });

  it('tools/call of every built-in tool with generated action, subresource, id and data', async () => {
    await fuzz('MCP tools/call', app.baseUrl, mcpRequest(fx, m().toolsCall), contract, { ...RUNS, numRuns: 250 });
  });

  it('batches, small ones of anything and large ones of cheap messages', async () => {
    await fuzz('MCP batches', app.baseUrl, mcpRequest(fx, m().batch), contract, RUNS);
  });

  it('malformed, non-object, deeply nested and oversize bodies', async () => {
    await fuzz('MCP odd bodies', app.baseUrl, mcpRequest(fx, oddMcpBody(m().any)), contract, RUNS);
  });

  it('2026-07-28 stateless requests of every method on /mcp and /mcp/servers/<name>, envelopes and headers right or wrong', async () => {
    await fuzz('MCP 2026', app.baseUrl, mcp2026Request(fx, m().args), (req) => check(app, req, modernAnswerProblems), {
      ...RUNS,
      numRuns: 250,
    });
  });

  it('everything at once', async () => {
    const { any, batch } = m();
    await fuzz('MCP everything', app.baseUrl, mcpRequest(fx, mcpBody(any, batch), true), contract, RUNS);
  });
});
