import { ProtocolError } from '@modelcontextprotocol/client';
import { isUnavailable, modernUnavailable, toMcpError, toModernMcpError } from '../../../../src/adapters/mcp/mcp-error-map';
import { RpcError } from '../../../../src/adapters/mcp/rpc-error';
import { ERROR_CODES, ErrorCode, UnknownResourceError, UnknownToolError, ValidationError } from '../../../../src/domain/errors';
import { DomainErrorMother } from '../../../mothers/domain-error.mother';

function makeSut() {
  const logged: unknown[] = [];
  return { logged, map: (error: unknown) => toMcpError(error, (e) => logged.push(e)) };
}

/** What reaches the client; `internal` codes are answered -32603 "Internal error" and logged. */
type Expected = { code: number; data?: unknown } | 'internal';

// Keyed by ErrorCode and checked for every entry of ERROR_CODES, so a new code fails here until it has its answer.
const EXPECTED: Record<ErrorCode, Expected> = {
  'VALIDATION.FAILED': { code: -32602, data: [{ field: 'name', message: 'must not be blank' }] },
  'HEADER_FIELD.INVALID': { code: -32602, data: [{ field: 'data.headers.Authorization', message: 'is not an HTTP header value' }] },
  'TOOL.UNKNOWN': { code: -32602 },
  'MCP_RESOURCE.UNKNOWN': { code: -32002, data: { uri: 'keygate://files/file:///notes/a.txt' } },
  'MCP_REFERENCE.UNKNOWN': { code: -32602 },
  'UPSTREAM.FAILED': { code: -32000 },
  'MCP_SUBSCRIPTION.LIMIT': { code: -32000, data: { max_subscriptions: 100 } },
  'MCP_CONNECTION.REQUIRED': {
    code: -32042,
    data: {
      elicitations: [
        {
          mode: 'url',
          elicitationId: expect.any(String),
          url: 'https://keygate.example/console/#/servers/s1/connect',
          message: 'Connect your account to the MCP server github to use its tools',
        },
      ],
    },
  },
  'APPROVAL.REQUIRED': {
    code: -32042,
    data: {
      elicitations: [
        {
          mode: 'url',
          elicitationId: 'a1',
          url: 'https://keygate.example/console/#/approvals/a1',
          message: 'This call needs approval (rule 0 of deploy: needs a yes): open the page to ask for it, then make the same call again',
        },
      ],
    },
  },
  'SCOPE.INSUFFICIENT': { code: -32003, data: { required_scopes: ['agents:write', 'chat:read'] } },
  'API_KEY.INVALID': 'internal',
  'ACCESS_TOKEN.INVALID': 'internal',
  'ACCESS.FORBIDDEN': 'internal',
  'RESOURCE.NOT_FOUND': 'internal',
  'STATE.CONFLICT': 'internal',
  'DATABASE.UNAVAILABLE': 'internal',
  'SIGNATURE.INVALID': 'internal',
  'SIGNING_KEYS.UNAVAILABLE': 'internal',
  'RATE_LIMIT.EXCEEDED': 'internal',
  'QUOTA.EXHAUSTED': 'internal',
};

describe('toMcpError for domain errors', () => {
  it.each(ERROR_CODES)('answers %s by its code', (code) => {
    const { map, logged } = makeSut();
    const error = DomainErrorMother[code]();
    const expected = EXPECTED[code];
    expect(expected).toBeDefined();
    const answer = map(error);
    expect(answer).toBeInstanceOf(RpcError);
    if (expected === 'internal') {
      expect({ code: answer.code, message: answer.message, data: answer.data }).toEqual({
        code: -32603,
        message: 'Internal error',
        data: undefined,
      });
      expect(logged).toEqual([error]);
    } else {
      expect({ code: answer.code, message: answer.message, data: answer.data }).toEqual({
        code: expected.code,
        message: error.message,
        data: expected.data,
      });
      expect(logged).toEqual([]);
    }
  });

  it('answers a validation error with -32602, its fields in data', () => {
    const { map } = makeSut();
    const error = map(ValidationError.single('agent_scopes', 'must hold at most 12 scopes'));
    expect(error).toMatchObject({
      code: -32602,
      message: 'agent_scopes: must hold at most 12 scopes',
      data: [{ field: 'agent_scopes', message: 'must hold at most 12 scopes' }],
    });
  });

  it('quotes at most 64 characters of an unknown tool name', () => {
    const { map } = makeSut();
    const error = map(new UnknownToolError('t'.repeat(1_000_000)));
    expect(error).toMatchObject({ code: -32602, message: `Unknown tool: ${'t'.repeat(63)}…` });
  });
});

describe('toMcpError for other errors', () => {
  it('passes an RpcError through as it is', () => {
    const { map } = makeSut();
    const error = new RpcError(-32602, 'Invalid params');
    expect(map(error)).toBe(error);
  });

  it("cuts a ProtocolError from anywhere (the SDK client's too) down to the error bounds", () => {
    const { map } = makeSut();
    const error = map(new ProtocolError(-32000, 'm'.repeat(1_000_000), new Array(100_000).fill({ a: 1 })));
    expect(error).toBeInstanceOf(RpcError);
    expect(error.message.length).toBeLessThanOrEqual(200);
    expect(error.data).toHaveLength(20);
  });

  it('hides and logs anything unexpected as -32603', () => {
    const { map, logged } = makeSut();
    const failure = new Error('connection string postgres://secret');
    expect(map(failure)).toMatchObject({ code: -32603, message: 'Internal error' });
    expect(logged).toEqual([failure]);
  });
});

describe('toModernMcpError (2026-07-28)', () => {
  const map = (error: unknown) => toModernMcpError(error, () => undefined);

  it('answers an unknown resource -32602, never -32002, with its message and URI', () => {
    const error = map(new UnknownResourceError('keygate://files/file:///nowhere'));
    expect({ code: error.code, message: error.message, data: error.data }).toEqual({
      code: -32602,
      message: 'Resource not found: keygate://files/file:///nowhere',
      data: { uri: 'keygate://files/file:///nowhere' },
    });
  });

  it("turns an upstream's -32002 into -32602 too", () => {
    expect(map(new ProtocolError(-32002, 'gone', { uri: 'file:///x' }))).toMatchObject({ code: -32602, data: { uri: 'file:///x' } });
  });

  it('answers everything else as 2025 does', () => {
    expect(map(new UnknownToolError('t'))).toMatchObject({ code: -32602, message: 'Unknown tool: t' });
    expect(map(new RpcError(-32000, 'upstream'))).toMatchObject({ code: -32000, message: 'upstream' });
  });
});

describe('an outage (what the HTTP map answers 503)', () => {
  const outage = () => DomainErrorMother['DATABASE.UNAVAILABLE']();
  const UNAVAILABLE = 'Service Unavailable: The database is not reachable; retry shortly';

  it('stays -32603 on 2025, where the answer is on HTTP 200 already, but is known for one', () => {
    const { map, logged } = makeSut();
    const answer = map(outage());
    expect({ code: answer.code, message: answer.message }).toEqual({ code: -32603, message: 'Internal error' });
    expect(isUnavailable(answer)).toBe(true);
    expect(logged).toHaveLength(1);
  });

  it("is -32000 with the edge's words on 2026, raw or mapped once already, and logged once", () => {
    const logged: unknown[] = [];
    const modern = (error: unknown) => toModernMcpError(error, (e) => logged.push(e));
    const first = modern(outage());
    const again = modern(toMcpError(outage(), (e) => logged.push(e)));
    for (const answer of [first, again]) {
      expect({ code: answer.code, message: answer.message, data: answer.data }).toEqual({
        code: -32000,
        message: UNAVAILABLE,
        data: undefined,
      });
      expect(isUnavailable(answer)).toBe(true);
    }
    expect(logged).toHaveLength(2);
  });

  it('is answered on the 2026 edge with the status, headers and the request id', () => {
    expect(modernUnavailable(outage(), 'r-1')).toEqual({
      rejection: { httpStatus: 503, id: 'r-1', code: -32000, message: UNAVAILABLE },
      headers: { 'Retry-After': '1' },
    });
    expect(
      modernUnavailable(
        toMcpError(outage(), () => undefined),
        7,
      ),
    ).toMatchObject({ rejection: { id: 7, code: -32000 } });
    expect(modernUnavailable(DomainErrorMother['SIGNING_KEYS.UNAVAILABLE'](), null)).toMatchObject({
      rejection: { httpStatus: 503, id: null, code: -32000 },
      headers: { 'Retry-After': expect.any(String) },
    });
  });

  it('is nothing else: a refusal, a fault or a driver error keep their own answers', () => {
    for (const error of [
      DomainErrorMother['QUOTA.EXHAUSTED'](),
      DomainErrorMother['UPSTREAM.FAILED'](),
      new Error('connect ECONNREFUSED 127.0.0.1:5432'),
      new RpcError(-32603, 'Internal error'),
    ]) {
      expect(isUnavailable(error)).toBe(false);
      expect(modernUnavailable(error, 1)).toBeUndefined();
    }
  });
});
