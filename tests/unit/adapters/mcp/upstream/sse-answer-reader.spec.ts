import { SseAnswerReader, SseVerdict } from '../../../../../src/adapters/mcp/upstream/sse-answer-reader';

/**
 * The direct POST of a held 2025 session reads an SSE answer itself only
 * when it is priming events then the response to its request; every other
 * stream goes to the SDK client, decided as early as the bytes allow.
 */
const ID = 5 * 2 ** 20;
const PRIMING = 'id: abc-1\nretry: 1000\ndata: \n\n';
const RESPONSE = `{"result":{"content":[{"type":"text","text":"hé"}]},"jsonrpc":"2.0","id":${ID}}`;
const ANSWER = `${PRIMING}event: message\nid: abc-2\ndata: ${RESPONSE}\n\n`;

/** The verdicts of feeding `chunks` in order, stopping at the first one. */
function verdictOf(chunks: Uint8Array[]): SseVerdict {
  const reader = new SseAnswerReader(ID);
  for (const chunk of chunks) {
    const verdict = reader.feed(chunk);
    if (verdict !== undefined) return verdict;
  }
  return undefined;
}
const whole = (text: string) => verdictOf([Buffer.from(text)]);

describe('SseAnswerReader', () => {
  it('reads priming events then the response for its id', () => {
    expect(whole(ANSWER)).toEqual({ kind: 'response', message: JSON.parse(RESPONSE) });
    expect(whole(`data: ${RESPONSE}\n\n`)).toEqual({ kind: 'response', message: JSON.parse(RESPONSE) });
    expect(whole(`data: \n\nid: x\n\n${`data: ${RESPONSE}\n\n`}`)).toMatchObject({ kind: 'response' });
    const error = `{"jsonrpc":"2.0","id":${ID},"error":{"code":-32602,"message":"no"}}`;
    expect(whole(`event: message\ndata: ${error}\n\n`)).toEqual({ kind: 'response', message: JSON.parse(error) });
    // Data lines join with LF, as the SDK's parser joins them.
    expect(whole(`data: {"result":{"content":[]},\ndata: "jsonrpc":"2.0","id":${ID}}\n\n`)).toEqual({
      kind: 'response',
      message: { result: { content: [] }, jsonrpc: '2.0', id: ID },
    });
  });

  it('decides the same however the bytes are split: in two at every boundary, and one byte at a time', () => {
    const bytes = Buffer.from(ANSWER);
    const expected = { kind: 'response', message: JSON.parse(RESPONSE) };
    for (let at = 0; at <= bytes.length; at++) expect(verdictOf([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(expected);
    expect(verdictOf([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(expected);
    const asking = Buffer.from(`${PRIMING}event: message\ndata: {"jsonrpc":"2.0","id":0,"method":"ping"}\n\n`);
    for (let at = 0; at <= asking.length; at++)
      expect(verdictOf([asking.subarray(0, at), asking.subarray(at)])).toEqual({ kind: 'handover' });
  });

  it('stays undecided until the response event is complete', () => {
    expect(whole(PRIMING)).toBeUndefined();
    expect(whole(ANSWER.slice(0, -1))).toBeUndefined();
    expect(whole('')).toBeUndefined();
  });

  it.each([
    [
      'a request from the upstream (it waits for the answer)',
      `${PRIMING}event: message\ndata: {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{}}\n\n`,
    ],
    [
      'a notification',
      `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n${`data: ${RESPONSE}\n\n`}`,
    ],
    ['a response for another id', `data: {"result":{"content":[]},"jsonrpc":"2.0","id":${ID + 1}}\n\n`],
    ['a response for the id the client numbered it (0)', `data: {"result":{"content":[]},"jsonrpc":"2.0","id":0}\n\n`],
    ['a CR line end', ANSWER.replace('\n\n', '\r\n\r\n')],
    ['a CR anywhere', `data: ${RESPONSE.replace('hé', 'h\\ré')}\r\n\n`],
    ['a comment', `: keep-alive\n\n${ANSWER}`],
    ['a comment line inside an event', `data: ${RESPONSE}\n: note\n\n`],
    ['an unknown field', `${PRIMING}event: message\nfoo: bar\ndata: ${RESPONSE}\n\n`],
    ['another event type', `event: other\ndata: ${RESPONSE}\n\n`],
    ['a priming event of another type', `event: ping\ndata: \n\n${ANSWER}`],
    ['a retry that is not a number', `retry: soon\ndata: \n\n${ANSWER}`],
    ['an id with NUL', `id: a\0b\ndata: \n\n${ANSWER}`],
    ['data that is not JSON', 'data: {"jsonrpc":\n\n'],
    ['a JSON array', `data: [${RESPONSE}]\n\n`],
    ['a byte-order mark', `\uFEFF${ANSWER}`],
    ['bytes after the response', `${ANSWER}event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n`],
    ['an empty line between events', `${PRIMING}\n${ANSWER}`],
  ])('hands over %s', (_case, text) => {
    expect(whole(text)).toEqual({ kind: 'handover' });
  });

  it('hands over bytes that are not UTF-8', () => {
    const bad = Buffer.concat([
      Buffer.from('data: {"jsonrpc":"2.0","id":1,"result":{"x":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}\n\n'),
    ]);
    expect(verdictOf([bad])).toEqual({ kind: 'handover' });
  });
});
