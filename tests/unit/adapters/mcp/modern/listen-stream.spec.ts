import { Response } from 'express';
import { ListenStream } from '../../../../../src/adapters/mcp/modern/listen-stream';
import { FakeResponse } from '../../../../fakes/fake-response';

const SERVER_INFO = { name: 'keygate', version: '1' };
const messages = (res: FakeResponse) =>
  res.chunks.filter((c) => c.startsWith('event: message')).map((c) => JSON.parse(c.slice(c.indexOf('data: ') + 6)));

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function makeSut(id: string | number = 'L') {
  const res = new FakeResponse();
  const stream = new ListenStream(res as unknown as Response, id, 1000, SERVER_INFO);
  return { res, stream };
}

describe('ListenStream', () => {
  it('answers as an event stream and tags every notification with the listen id, keeping its own _meta', () => {
    const { res, stream } = makeSut(42);
    expect(res.statusCode).toBe(200);
    expect(res.headers['Content-Type']).toBe('text/event-stream');
    stream.notify('notifications/resources/updated', { uri: 'a://1', _meta: { other: 1 } });
    stream.notify('notifications/tools/list_changed');
    expect(messages(res)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'a://1', _meta: { other: 1, 'io.modelcontextprotocol/subscriptionId': 42 } },
      },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 42 } } },
    ]);
  });

  it('sends a keep-alive comment every keepAliveMs, and none once ended', () => {
    const { res, stream } = makeSut();
    jest.advanceTimersByTime(2500);
    expect(res.chunks).toEqual([': keep-alive\n\n', ': keep-alive\n\n']);
    stream.end(false);
    jest.advanceTimersByTime(5000);
    expect(res.chunks).toHaveLength(2);
  });

  it("ends gracefully with the listen request's result, tagged, then runs its closers once", () => {
    const { res, stream } = makeSut('L');
    const closed = jest.fn();
    stream.onEnd(closed);
    stream.end(true);
    stream.end(true);
    expect(messages(res)).toEqual([
      {
        jsonrpc: '2.0',
        id: 'L',
        result: {
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/subscriptionId': 'L', 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        },
      },
    ]);
    expect(res.writableEnded).toBe(true);
    expect(closed).toHaveBeenCalledTimes(1);
    stream.notify('notifications/tools/list_changed');
    expect(messages(res)).toHaveLength(1);
  });

  it('ends without a result when the client closes the connection', () => {
    const { res, stream } = makeSut();
    const closed = jest.fn();
    stream.onEnd(closed);
    res.emit('close');
    expect(stream.closed).toBe(true);
    expect(closed).toHaveBeenCalledTimes(1);
    expect(messages(res)).toEqual([]);
  });
});
