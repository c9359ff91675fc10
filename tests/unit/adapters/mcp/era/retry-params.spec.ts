import { retryParamsRefusal } from '../../../../../src/adapters/mcp/era/retry-params';

describe('retryParamsRefusal', () => {
  it.each<[string, unknown]>([
    ['a number for inputResponses', { inputResponses: 5 }],
    ['null inputResponses', { inputResponses: null }],
    ['an array of inputResponses', { inputResponses: [{ action: 'accept' }] }],
    ['an entry that is a number', { inputResponses: { user_name: 12345 } }],
    ['an entry that is null', { inputResponses: { user_name: null } }],
    ['a requestState that is not a string', { requestState: { forged: true } }],
    ['more than 32 answers', { inputResponses: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, { action: 'accept' }])) }],
  ])('refuses %s with 400 -32602, the id echoed', (_name, params) => {
    expect(retryParamsRefusal('r1', params)).toMatchObject({ httpStatus: 400, id: 'r1', code: -32602 });
  });

  it.each<[string, unknown]>([
    ['no retry fields', { name: 'echo', arguments: {} }],
    [
      'answers keygate did not ask for beside one it did',
      { inputResponses: { a: { action: 'accept', content: {} }, extra: { action: 'decline' } } },
    ],
    ['a string requestState', { requestState: 'v1.abc.def' }],
    ['no params at all', undefined],
  ])('lets %s through', (_name, params) => {
    expect(retryParamsRefusal(1, params)).toBeUndefined();
  });
});
