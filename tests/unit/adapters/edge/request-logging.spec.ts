import { acceptedRequestId } from '../../../../src/adapters/edge/request-logging';

const RAW_KEY = `svc_${'ab'.repeat(32)}`;

describe('acceptedRequestId', () => {
  it('keeps a sane token', () => {
    for (const id of ['3f0c1c1e-9a57-4c1b-8f0e-2b8f5b0c9d11', 'trace.42:span-7', 'a']) expect(acceptedRequestId(id)).toBe(id);
  });

  it('refuses anything else, so the caller generates one', () => {
    const refused = [undefined, '', ' x', 'a b', 'x'.repeat(65), 'id\nforged-log-line', ['a', 'b'], '<script>'];
    for (const id of refused) expect(acceptedRequestId(id)).toBeNull();
  });

  it('refuses a credential sent as the request id, which would be echoed and logged', () => {
    expect(acceptedRequestId(RAW_KEY.slice(0, 60))).toBeNull();
    expect(acceptedRequestId('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0')).toBeNull();
    // A key's secret part without svc_: 64 hex digits, just within the length a request id may have.
    expect(acceptedRequestId(RAW_KEY.slice('svc_'.length))).toBeNull();
    expect(acceptedRequestId('0af7651916cd43dd8448eb211c80319c')).toBe('0af7651916cd43dd8448eb211c80319c');
  });
});
