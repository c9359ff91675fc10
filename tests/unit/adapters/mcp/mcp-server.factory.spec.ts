import { SessionRelays } from '../../../../src/adapters/mcp/relay/session-relays';
import { InMemorySessionBus, InMemorySessionBusHub } from '../../../fakes/in-memory-session-bus';
import { InMemoryUpstreamSessionStore } from '../../../fakes/in-memory-upstream-session-store';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createHash } from 'node:crypto';
import { McpServerFactory } from '../../../../src/adapters/mcp/mcp-server.factory';
import { ToolCallRecorder } from '../../../../src/adapters/mcp/tool-call-recorder';
import { AllowedCalls } from '../../../../src/adapters/mcp/tool-gate';
import { FilterTools } from '../../../../src/application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ListTools } from '../../../../src/application/use-cases/gateway/list-tools/list-tools.use-case';
import { DatabaseUnavailableError } from '../../../../src/domain/errors';
import { FakeExternalTools } from '../../../fakes/fake-external-tools';
import { FixedClock } from '../../../fakes/fixed-clock';
import { InMemoryAuditQueue } from '../../../fakes/in-memory-audit-queue';
import { InMemoryResourceStore } from '../../../fakes/in-memory-resource.store';
import { makeCallTool } from '../../../support/call-tool-service';
import { makeUpstreamContent } from '../../../support/upstream-content-use-cases';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

const RELAY_LIMITS = {
  maxPendingPerSession: 16,
  maxMessagesPerCall: 1000,
  maxBytesPerCall: 1024 * 1024,
  answerTimeoutMs: 60_000,
  callTimeoutMs: 300_000,
};

const principal = { keyId: 'k', userId: 'alice', scopes: ScopeSetMother.full(), budgetId: 'k', rateLimit: null, hasQuota: false };
const origin = { requestId: 'req-1', ip: '203.0.113.9' };

async function makeSut(calls: AllowedCalls, store = new InMemoryResourceStore()) {
  const external = new FakeExternalTools();
  const logged: unknown[] = [];
  const audit = new InMemoryAuditQueue();
  const clock = new FixedClock();
  const recorder = new ToolCallRecorder(audit, clock);
  const content = makeUpstreamContent(store);
  const factory = new McpServerFactory({
    listTools: new ListTools(new FilterTools(), external),
    callTool: makeCallTool(store, {}, external).sut,
    log: (error) => logged.push(error),
    recorder,
    content: content.useCases,
    relays: new SessionRelays(new InMemorySessionBus(new InMemorySessionBusHub()), new InMemoryUpstreamSessionStore(), RELAY_LIMITS),
    capabilities: content.capabilities,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await factory.create(principal, calls, 1, origin).connect(serverSide);
  const client = new Client({ name: 'spec', version: '1' });
  await client.connect(clientSide);
  return { external, store, logged, client, audit, clock };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('McpServerFactory: tools/call', () => {
  it('runs the target the tool gate found, without resolving the name again', async () => {
    const tool = new FakeExternalTools().add('alice', 'files__echo', []);
    const { external, client } = await makeSut(new Map([['files__echo', { kind: 'external', tool }]]));
    const result = await client.callTool({ name: 'files__echo', arguments: { text: 'hi' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'echo ran' }] });
    expect(external.runs).toEqual([{ tool, args: { text: 'hi' } }]);
    expect(external.resolved).toEqual([]);
    await client.close();
  });

  it("runs a built-in target with the call's own arguments", async () => {
    const { store, client } = await makeSut(new Map([['projects', { kind: 'built-in', resource: 'projects' }]]));
    const result = await client.callTool({ name: 'projects', arguments: { action: 'create', data: { n: 1 } } });
    expect(result.structuredContent).toMatchObject({ record: { resource: 'projects', data: { n: 1 } } });
    expect(store.records).toHaveLength(1);
    await client.close();
  });

  it('answers -32602 for a tool the gate found no target for', async () => {
    const { client } = await makeSut(new Map([['nope__x', null]]));
    await expect(client.callTool({ name: 'nope__x', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: nope__x'),
    });
    await client.close();
  });

  it('runs nothing the gate did not see: an internal error, logged', async () => {
    const { store, logged, client } = await makeSut(new Map());
    await expect(client.callTool({ name: 'projects', arguments: { action: 'create' } })).rejects.toMatchObject({ code: -32603 });
    expect(store.records).toEqual([]);
    expect(String(logged[0])).toContain('without passing the tool gate');
    await client.close();
  });
});

describe('McpServerFactory: the audit trail', () => {
  const projects = new Map([['projects', { kind: 'built-in', resource: 'projects' } as const]]);

  it("records a call that ran as one tool.called event, with the call's facts and none of its values", async () => {
    const { client, audit, clock } = await makeSut(projects);
    await client.callTool({ name: 'projects', arguments: { data: { secret: 'hunter2' }, action: 'create' } });
    expect(audit.records).toEqual([
      {
        action: 'tool.called',
        actor: { type: 'key', id: 'k' },
        userId: 'alice',
        keyId: 'k',
        target: { type: 'tool', id: 'projects' },
        occurredAt: clock.now(),
        requestId: 'req-1',
        ip: '203.0.113.9',
        details: {
          tool: 'projects',
          action: 'create',
          subresource: null,
          record_id: null,
          outcome: 'ok',
          duration_ms: expect.any(Number),
          args_sha256: sha256('{"action":"create","data":{"secret":"hunter2"}}'),
          required_scopes: ['projects:write'],
        },
      },
    ]);
    expect(JSON.stringify(audit.records)).not.toContain('hunter2');
    await client.close();
  });

  it('records an error outcome as outcome error', async () => {
    const { client, audit } = await makeSut(projects);
    const id = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    const result = await client.callTool({ name: 'projects', arguments: { action: 'get', id } });
    expect(result.isError).toBe(true);
    expect(audit.records.map((r) => r.details)).toEqual([
      expect.objectContaining({ action: 'get', record_id: id, outcome: 'error', required_scopes: ['projects:read'] }),
    ]);
    await client.close();
  });

  it('records a thrown failure as outcome error, and still answers with the failure', async () => {
    const store = new InMemoryResourceStore();
    store.list = async () => {
      throw new DatabaseUnavailableError();
    };
    const { client, audit } = await makeSut(projects, store);
    await expect(client.callTool({ name: 'projects', arguments: { action: 'list' } })).rejects.toThrow();
    expect(audit.records.map((r) => [r.action, r.details.outcome])).toEqual([['tool.called', 'error']]);
    await client.close();
  });

  it('records an upstream tool with the scopes its server names and no built-in facts; its isError result is an error', async () => {
    const tool = { ...new FakeExternalTools().add('alice', 'files__echo', ['chat:read']) };
    const { external, client, audit } = await makeSut(new Map([['files__echo', { kind: 'external', tool }]]));
    external.run = async () => ({ kind: 'relayed', result: { content: [], isError: true } });
    await client.callTool({ name: 'files__echo', arguments: { action: 'get', id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' } });
    await client.callTool({ name: 'files__echo' });
    expect(audit.records.map((r) => r.details)).toEqual([
      expect.objectContaining({
        tool: 'files__echo',
        action: null,
        subresource: null,
        record_id: null,
        outcome: 'error',
        required_scopes: ['chat:read'],
      }),
      expect.objectContaining({ args_sha256: sha256('{}') }),
    ]);
    await client.close();
  });

  it('records nothing for a call that does not run', async () => {
    const { client, audit } = await makeSut(new Map([['nope__x', null]]));
    await expect(client.callTool({ name: 'nope__x', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.listTools();
    expect(audit.records).toEqual([]);
    await client.close();
  });
});
