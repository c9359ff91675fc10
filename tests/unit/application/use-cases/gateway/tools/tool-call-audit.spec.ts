import { resultOf, ToolCallFacts, toolCallEvent } from '../../../../../../src/application/use-cases/gateway/tools/tool-call-audit';

const ID = '6F1C2D3E-4B5A-4C6D-8E7F-9A0B1C2D3E4F';
const facts = (over: Partial<ToolCallFacts> = {}): ToolCallFacts => ({
  keyId: 'key-1',
  userId: 'user-1',
  origin: { requestId: 'req-1', ip: '198.51.100.7' },
  tool: 'agents',
  arguments: { action: 'assign', subresource: 'mcp', id: ID, data: { token: 'sekrit' } },
  result: 'ok',
  durationMs: 1.23456,
  argsSha256: 'ab'.repeat(32),
  requiredScopes: ['agents:write'],
  at: new Date('2026-06-01T12:00:00.000Z'),
  ...over,
});

describe('toolCallEvent', () => {
  it('tells a call that ran as tool.called by the key, about its owner, targeting the tool', () => {
    expect(toolCallEvent(facts())).toEqual({
      action: 'tool.called',
      actor: { type: 'key', id: 'key-1' },
      userId: 'user-1',
      keyId: 'key-1',
      target: { type: 'tool', id: 'agents' },
      occurredAt: new Date('2026-06-01T12:00:00.000Z'),
      requestId: 'req-1',
      ip: '198.51.100.7',
      details: {
        tool: 'agents',
        action: 'assign',
        subresource: 'mcp',
        record_id: ID.toLowerCase(),
        outcome: 'ok',
        duration_ms: 1.235,
        args_sha256: 'ab'.repeat(32),
        required_scopes: ['agents:write'],
      },
    });
  });

  it("names the user as actor, and no key, for a call made with the user's access token", () => {
    expect(toolCallEvent(facts({ keyId: null }))).toMatchObject({ actor: { type: 'user', id: 'user-1' }, userId: 'user-1', keyId: null });
  });

  it('tells a refused call as tool.denied with outcome denied', () => {
    const event = toolCallEvent(facts({ result: 'denied', durationMs: 0 }));
    expect(event.action).toBe('tool.denied');
    expect(event.details).toMatchObject({ outcome: 'denied', duration_ms: 0, required_scopes: ['agents:write'] });
  });

  it('keeps no argument value but a known action, a subresource of the tool and a UUID', () => {
    const odd = toolCallEvent(facts({ arguments: { action: 'sekrit', subresource: 'prompt-ish', id: 'svc_123', data: 'x' } }));
    expect(odd.details).toMatchObject({ action: null, subresource: null, record_id: null });
    expect(JSON.stringify(odd)).not.toMatch(/sekrit|svc_123|prompt-ish/);
    expect(JSON.stringify(toolCallEvent(facts()))).not.toContain('sekrit');
    expect(toolCallEvent(facts({ tool: 'projects', arguments: { action: 'get', subresource: 'mcp' } })).details.subresource).toBeNull();
    expect(toolCallEvent(facts({ arguments: undefined })).details).toMatchObject({ action: null, subresource: null, record_id: null });
  });

  it("keeps nothing of an upstream tool's arguments, whatever their names", () => {
    const event = toolCallEvent(facts({ tool: 'files__read', arguments: { action: 'get', id: ID } }));
    expect(event.details).toMatchObject({ tool: 'files__read', action: null, subresource: null, record_id: null });
  });

  it('writes the duration in milliseconds to the microsecond, never negative or not a number', () => {
    expect(toolCallEvent(facts({ durationMs: 12.0004 })).details.duration_ms).toBe(12);
    expect(toolCallEvent(facts({ durationMs: -1 })).details.duration_ms).toBe(0);
    expect(toolCallEvent(facts({ durationMs: Number.NaN })).details.duration_ms).toBe(0);
  });
});

describe('resultOf', () => {
  it("is error for a tool error, ours or an upstream's (isError), and ok otherwise", () => {
    expect(resultOf({ kind: 'error', message: 'no' })).toBe('error');
    expect(resultOf({ kind: 'relayed', result: { content: [], isError: true } })).toBe('error');
    expect(resultOf({ kind: 'relayed', result: { content: [] } })).toBe('ok');
    expect(resultOf({ kind: 'value', value: { kind: 'deleted', id: ID } })).toBe('ok');
  });

  it("is input_required for an upstream's 2026-07-28 round that asked the client for input", () => {
    expect(resultOf({ kind: 'relayed', result: { resultType: 'input_required', inputRequests: {} } })).toBe('input_required');
  });
});
