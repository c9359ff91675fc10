import { clientCapabilitiesOf, loggedAt, logLevelOf, traceOf } from '../../../../../src/adapters/mcp/modern/forwarded-meta';

describe('forwarded-meta', () => {
  it('keeps the three W3C trace keys as strings, nothing else, none over 8192 characters', () => {
    expect(traceOf({ traceparent: 'a', tracestate: 'b', baggage: 'c', progressToken: 1, other: 'x' })).toEqual({
      traceparent: 'a',
      tracestate: 'b',
      baggage: 'c',
    });
    expect(traceOf({ traceparent: 7, baggage: 'x'.repeat(8193) })).toEqual({});
    expect(traceOf(undefined)).toEqual({});
    expect(traceOf(['traceparent'])).toEqual({});
  });

  it("reads the client's capabilities and a logLevel MCP knows from the envelope", () => {
    expect(clientCapabilitiesOf({ 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } })).toEqual({ sampling: {} });
    expect(clientCapabilitiesOf({})).toEqual({});
    expect(logLevelOf({ 'io.modelcontextprotocol/logLevel': 'warning' })).toBe('warning');
    expect(logLevelOf({ 'io.modelcontextprotocol/logLevel': 'loud' })).toBeUndefined();
    expect(logLevelOf(undefined)).toBeUndefined();
  });

  it.each([
    ['debug', 'info', false],
    ['info', 'info', true],
    ['emergency', 'debug', true],
    ['made-up', 'debug', false],
  ])('a %s message for a client at %s: %s', (level, threshold, passes) => {
    expect(loggedAt(level, threshold)).toBe(passes);
  });
});
