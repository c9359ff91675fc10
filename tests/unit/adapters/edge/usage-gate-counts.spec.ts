import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { isJSONRPCRequest } from '@modelcontextprotocol/server';
import { Registry } from 'prom-client';
import { ToolUsageHook } from '../../../../src/adapters/edge/tool-usage-hook';
import { toolCallsIn, UsageGate } from '../../../../src/adapters/edge/usage-gate';
import { ToolCallMetrics } from '../../../../src/adapters/observability/tool-call-metrics';
import { AdmitRequest } from '../../../../src/application/use-cases/usage-limits/admit-request.use-case';
import { ChargeToolCalls } from '../../../../src/application/use-cases/usage-limits/charge-tool-calls.use-case';
import { UsageTally } from '../../../../src/application/use-cases/usage/usage-tally';
import { KeyPrincipal } from '../../../../src/application/use-cases/validate-key/validate-key.use-case';
import { QuotaExhaustedError, RateLimitedError } from '../../../../src/domain/errors';
import { FixedClock } from '../../../fakes/fixed-clock';

function makeSut() {
  const tally = new UsageTally();
  const admit = { execute: async () => Promise.reject(new RateLimitedError(1, 60, 30)) } as unknown as AdmitRequest;
  const charge = { execute: async () => Promise.reject(new QuotaExhaustedError(2)) } as unknown as ChargeToolCalls;
  const usage = new ToolUsageHook(tally, new ToolCallMetrics(new Registry(), 'test_'), new FixedClock());
  const sut = new UsageGate({ admit, charge, usage });
  const principal = {
    keyId: 'k',
    userId: 'u',
    budgetId: 'k',
    rateLimit: { limit: 1, windowSeconds: 60 },
    hasQuota: true,
  } as unknown as KeyPrincipal;
  const counted = () => tally.drain().entries.map((e) => [e.keyId, e.tool, e.outcome, e.count]);
  return { sut, principal, counted };
}

const toolCall = (id: number, name: string) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call', params: { name } });

describe('UsageGate charges', () => {
  it("charges a POST's tools/call requests only: not a tools/call notification, nor another method", async () => {
    const charged: number[] = [];
    const charge = { execute: async ({ calls }: { calls: number }) => void charged.push(calls) } as unknown as ChargeToolCalls;
    const sut = new UsageGate({ admit: {} as AdmitRequest, charge });
    const { principal } = makeSut();
    const notification = { jsonrpc: '2.0' as const, method: 'tools/call', params: { name: 'projects' } };
    const list = { jsonrpc: '2.0' as const, id: 4, method: 'tools/list' };
    await sut.chargeToolCalls(principal, [toolCall(1, 'projects'), notification, list, toolCall(2, 'made_up')]);
    await sut.chargeToolCalls(principal, [notification, list]);
    expect(charged).toEqual([2, 0]);
  });

  it("counts as a request exactly what the SDK's request check does, among the messages its schema accepts", () => {
    const candidates: unknown[] = [
      toolCall(1, 'projects'),
      { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'a', _meta: { progressToken: 1 } } },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', id: null, method: 'tools/call' },
      { jsonrpc: '2.0', id: 1.5, method: 'tools/call' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', result: {} },
      { jsonrpc: '2.0', id: 'x', method: 'tools/call', extra: 1 },
      { jsonrpc: '2.0', id: 1, result: { content: [] } },
      { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } },
    ];
    const accepted = candidates.flatMap((m) => {
      const parsed = JSONRPCMessageSchema.safeParse(m);
      return parsed.success ? [parsed.data] : [];
    });
    expect(accepted.length).toBeGreaterThanOrEqual(4);
    for (const message of accepted)
      expect([JSON.stringify(message), toolCallsIn([message])]).toEqual([
        JSON.stringify(message),
        isJSONRPCRequest(message) && (message as { method?: string }).method === 'tools/call' ? 1 : 0,
      ]);
  });
});

describe('UsageGate usage counts', () => {
  it('counts a request the rate limit refuses on /mcp once under tool "", and none on /authz', async () => {
    const { sut, principal, counted } = makeSut();
    const res = { locals: { principal }, setHeader: () => undefined } as never;
    await expect(sut.admitMcpRequest({} as never, res, () => undefined)).rejects.toBeInstanceOf(RateLimitedError);
    await expect(sut.admitRequest({} as never, res, () => undefined)).rejects.toBeInstanceOf(RateLimitedError);
    expect(counted()).toEqual([['k', '', 'rate_limited', 1]]);
  });

  it('counts each tools/call of a POST the quota refuses, an unknown tool as other', async () => {
    const { sut, principal, counted } = makeSut();
    const messages = [toolCall(1, 'projects'), toolCall(2, 'projects'), toolCall(3, 'made_up')];
    await expect(sut.chargeToolCalls(principal, messages, (name) => name === 'projects')).rejects.toBeInstanceOf(QuotaExhaustedError);
    expect(counted()).toEqual([
      ['k', 'projects', 'quota_exhausted', 2],
      ['k', 'other', 'quota_exhausted', 1],
    ]);
  });
});
