import { connectionAnswer, connectionError, takesUrlElicitation, toModernMcpError } from '../../../../src/adapters/mcp/mcp-error-map';
import { RpcError } from '../../../../src/adapters/mcp/rpc-error';
import { ApprovalRequiredError, ConnectionRequiredError } from '../../../../src/domain/errors';

const PAGE = '/console/#/servers/s1/connect';
const MESSAGE = 'Connect your account to the MCP server github to use its tools';
const error = (page = PAGE) => new ConnectionRequiredError('github', page);

function makeSut() {
  const logged: unknown[] = [];
  return { logged, log: (e: unknown) => logged.push(e) };
}

describe('connectionAnswer: how a call that needs a connection is answered, by what the client takes', () => {
  it('is a tool error naming the page for a client that takes no URL elicitation', () => {
    const { log } = makeSut();
    expect(connectionAnswer(error(), { kind: 'tool-error' }, log)).toEqual({
      content: [{ type: 'text', text: `The MCP server github needs your own credential: connect to it at ${PAGE}, then call again` }],
      isError: true,
    });
  });

  it("is -32042 with one URL elicitation of the page made absolute on the client's origin, for a 2025-11-25 client", () => {
    const { log, logged } = makeSut();
    let thrown: unknown;
    try {
      connectionAnswer(error(), { kind: 'url-elicitation-error', base: 'http://127.0.0.1:8080' }, log);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RpcError);
    const rpc = thrown as RpcError;
    expect(rpc.code).toBe(-32042);
    expect(rpc.data).toEqual({
      elicitations: [{ mode: 'url', elicitationId: expect.any(String), url: `http://127.0.0.1:8080${PAGE}`, message: MESSAGE }],
    });
    expect(logged).toEqual([]);
  });

  it('keeps a page that is absolute already (MCP_RESOURCE_URL), whatever origin the client used', () => {
    const { log } = makeSut();
    const page = 'https://keygate.example.com/console/#/servers/s1/connect';
    expect(() => connectionAnswer(error(page), { kind: 'url-elicitation-error', base: 'http://10.0.0.1' }, log)).toThrow(
      expect.objectContaining({ data: { elicitations: [expect.objectContaining({ url: page })] } }),
    );
  });

  it('gives each -32042 its own elicitationId', () => {
    const { log } = makeSut();
    const idOf = () => {
      try {
        connectionAnswer(error(), { kind: 'url-elicitation-error', base: 'http://localhost' }, log);
      } catch (e) {
        return ((e as RpcError).data as { elicitations: { elicitationId: string }[] }).elicitations[0].elicitationId;
      }
      throw new Error('not thrown');
    };
    expect(idOf()).not.toBe(idOf());
  });

  it('is input_required with the URL elicitation and the given requestState, for a 2026-07-28 client', () => {
    const { log } = makeSut();
    const result = connectionAnswer(error(), { kind: 'input-required', base: 'https://gw.example', requestState: () => 'sealed' }, log);
    expect(result).toEqual({
      resultType: 'input_required',
      inputRequests: {
        connect: { method: 'elicitation/create', params: { mode: 'url', url: `https://gw.example${PAGE}`, message: MESSAGE } },
      },
      requestState: 'sealed',
    });
  });

  it('falls back to the tool error when no absolute http(s) URL can be made of the page', () => {
    const { log } = makeSut();
    const result = connectionAnswer(error(), { kind: 'input-required', base: 'not a url', requestState: () => 'never' }, log);
    expect(result).toMatchObject({ isError: true });
  });
});

describe('connectionAnswer for a call held for approval: the same three forms, with the approval page', () => {
  const held = () => new ApprovalRequiredError('a1', '/console/#/approvals/a1', 'rule 0 of deploy: needs a yes');
  const ASK = 'This call needs approval (rule 0 of deploy: needs a yes): open the page to ask for it, then make the same call again';

  it('is a tool error naming the page, -32042 whose elicitationId is the approval id, or input_required asking to approve', () => {
    const { log } = makeSut();
    expect(connectionAnswer(held(), { kind: 'tool-error' }, log)).toEqual({
      content: [
        {
          type: 'text',
          text: 'This call needs approval (rule 0 of deploy: needs a yes): ask for it at /console/#/approvals/a1, then make the same call again',
        },
      ],
      isError: true,
    });
    expect(() => connectionAnswer(held(), { kind: 'url-elicitation-error', base: 'http://127.0.0.1:8080' }, log)).toThrow(
      expect.objectContaining({
        code: -32042,
        data: { elicitations: [{ mode: 'url', elicitationId: 'a1', url: 'http://127.0.0.1:8080/console/#/approvals/a1', message: ASK }] },
      }),
    );
    expect(connectionAnswer(held(), { kind: 'input-required', base: 'https://gw.example', requestState: () => 'sealed' }, log)).toEqual({
      resultType: 'input_required',
      inputRequests: {
        approve: { method: 'elicitation/create', params: { mode: 'url', url: 'https://gw.example/console/#/approvals/a1', message: ASK } },
      },
      requestState: 'sealed',
    });
  });
});

describe('connectionError: a read, prompt or completion that needs a connection, which has no tool result to carry it', () => {
  const NAMED = `The MCP server github needs your own credential: connect to it at ${PAGE}, then call again`;

  it('is -32042 with the page made absolute, for a 2025-11-25 session that declared URL elicitation', () => {
    const { log } = makeSut();
    const rpc = connectionError(error(), 'http://127.0.0.1:8080', log);
    expect(rpc.code).toBe(-32042);
    expect(rpc.data).toEqual({
      elicitations: [{ mode: 'url', elicitationId: expect.any(String), url: `http://127.0.0.1:8080${PAGE}`, message: MESSAGE }],
    });
  });

  it('is a server error naming the page otherwise, and for every 2026-07-28 request', () => {
    const { log, logged } = makeSut();
    for (const rpc of [
      connectionError(error(), undefined, log),
      connectionError(error(), 'not a url', log),
      toModernMcpError(error(), log),
    ]) {
      expect(rpc).toBeInstanceOf(RpcError);
      expect({ code: rpc.code, message: rpc.message, data: rpc.data }).toEqual({ code: -32000, message: NAMED, data: undefined });
    }
    expect(logged).toEqual([]);
  });
});

describe('takesUrlElicitation', () => {
  it.each([
    [{ elicitation: { url: {} } }, true],
    [{ elicitation: { form: {}, url: {} } }, true],
    [{ elicitation: {} }, false],
    [{ elicitation: { form: {} } }, false],
    [{ elicitation: { url: true } }, false],
    [{}, false],
    [undefined, false],
  ])('%j: %s', (capabilities, takes) => {
    expect(takesUrlElicitation(capabilities)).toBe(takes);
  });
});
