import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { UpstreamReplyError } from '../../../../../src/application/ports/upstream-content.port';
import { asReplyError } from '../../../../../src/adapters/mcp/upstream/sdk-upstream-lists';

describe('asReplyError', () => {
  it("takes the upstream's JSON-RPC error answer for a reply, its code and message kept", () => {
    const reply = asReplyError(new ProtocolError(-32602, 'Unknown tool: x', { uri: 'file:///x' }));
    expect(reply).toBeInstanceOf(UpstreamReplyError);
    expect(reply).toMatchObject({ code: -32602, message: 'Unknown tool: x' });
  });

  // Codes an upstream may answer with too: a reply is told by its class, not its code.
  it.each([-32000, -32001])('takes an answer with code %i for a reply as well', (code) => {
    expect(asReplyError(new ProtocolError(code, 'busy'))).toBeInstanceOf(UpstreamReplyError);
  });

  it.each([
    ['a timeout', new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out')],
    ['a closed connection', new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')],
    [
      'an HTTP status',
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing to endpoint', { status: 404, statusText: 'Not Found' }),
    ],
    ['anything else', new Error('socket hang up')],
  ])('leaves %s, which is no answer, as it is', (_name, error) => {
    expect(asReplyError(error)).toBe(error);
  });
});
