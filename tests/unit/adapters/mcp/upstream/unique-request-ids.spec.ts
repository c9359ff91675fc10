import { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { withUniqueRequestIds } from '../../../../../src/adapters/mcp/upstream/unique-request-ids';

/** A transport that keeps what is sent, and lets the test play the upstream. */
function makeSut(offset?: number) {
  const sent: JSONRPCMessage[] = [];
  const transport = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (message: JSONRPCMessage) => void sent.push(message),
  } as unknown as Transport;
  const received: JSONRPCMessage[] = [];
  const sut = withUniqueRequestIds(transport, offset);
  sut.onmessage = (message) => void received.push(message);
  const fromUpstream = (message: JSONRPCMessage) => sut.onmessage!(message);
  return { sut, sent, received, fromUpstream };
}

const call = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'steps' } });

describe('withUniqueRequestIds', () => {
  it('gives two contacts that both start at id 0 different ids on the wire', async () => {
    const [a, b] = [makeSut(), makeSut()];
    await a.sut.send(call(0));
    await b.sut.send(call(0));
    const [idA, idB] = [a.sent[0], b.sent[0]].map((m) => (m as { id: number }).id);
    expect(typeof idA).toBe('number');
    expect(idA).not.toBe(idB);
    expect(Number.isSafeInteger(idA) && Number.isSafeInteger(idB)).toBe(true);
  });

  it("hands the upstream's answer back under the id the client sent", async () => {
    const { sut, sent, received, fromUpstream } = makeSut(2 ** 40);
    await sut.send(call(3));
    expect(sent[0]).toMatchObject({ id: 2 ** 40 + 3, method: 'tools/call', params: { name: 'steps' } });
    fromUpstream({ jsonrpc: '2.0', id: 2 ** 40 + 3, result: { content: [] } });
    expect(received).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [] } }]);
  });

  it('names the moved id in a cancellation', async () => {
    const { sut, sent } = makeSut(2 ** 40);
    await sut.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'gone' } });
    expect(sent[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 ** 40 + 3, reason: 'gone' } });
  });

  it("leaves the upstream's own requests and keygate's answers to them as they are", async () => {
    const { sut, sent, received, fromUpstream } = makeSut(2 ** 40);
    const asked: JSONRPCMessage = { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} };
    fromUpstream(asked);
    await sut.send({ jsonrpc: '2.0', id: 0, result: { action: 'decline' } });
    expect(received).toEqual([asked]);
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 0, result: { action: 'decline' } }]);
  });
});
