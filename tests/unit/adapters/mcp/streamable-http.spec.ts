import { responseFormat } from '../../../../src/adapters/mcp/streamable-http';

describe('responseFormat', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/json, text/event-stream', 'json'],
    ['text/event-stream', 'sse'],
    ['text/*', 'sse'],
    ['application/json;q=0, text/event-stream', 'sse'],
    ['text/html', null],
    ['application/json;q=0', null],
  ])('Accept %j gives %j', (accept, expected) => {
    expect(responseFormat(accept)).toBe(expected);
  });
});
