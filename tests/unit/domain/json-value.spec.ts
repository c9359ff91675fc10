import { findBodyProblem, findJsonProblem, MAX_JSON_DEPTH } from '../../../src/domain/json-value';

const nested = (depth: number, inner: unknown = 1): unknown => {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('findJsonProblem', () => {
  it('accepts nesting 32 deep and refuses 33, naming where', () => {
    expect(MAX_JSON_DEPTH).toBe(32);
    expect(findJsonProblem({ scopes: nested(31) }, '')).toBeNull();
    expect(findJsonProblem({ scopes: nested(32) }, '')).toEqual({
      field: `scopes${'[0]'.repeat(19)}…`,
      message: 'is nested deeper than 32 levels',
    });
  });

  it('walks 30,000 levels without overflowing the stack, stopping at the limit', () => {
    const deep = JSON.parse(`{"params":{"data":${'['.repeat(30_000)}${']'.repeat(30_000)}}}`);
    expect(findJsonProblem(deep, '')).toEqual({
      field: expect.stringMatching(/^params\.data\[0\]/),
      message: expect.stringContaining('deeper'),
    });
  });

  it('names text that cannot be stored, in values and in keys, only when asked', () => {
    const data = JSON.parse('{"a":{"list":["ok","x\\u0000"]},"b\\ud800":1}');
    expect(findJsonProblem(data, 'data')).toBeNull();
    expect(findJsonProblem(data, 'data', { storableText: true })).toEqual({
      field: 'data.a.list[1]',
      message: expect.stringContaining('NUL'),
    });
    expect(findJsonProblem({ ok: 1, 'b\ud800': 1 }, 'data', { storableText: true })).toEqual({
      field: 'data.b\ud800',
      message: expect.stringMatching(/^its name .*unpaired surrogate/),
    });
  });

  it('treats a "__proto__" key as a plain key', () => {
    const data = JSON.parse('{"__proto__":{"x":"\\u0000"}}');
    expect(findJsonProblem(data, 'data', { storableText: true })).toEqual({ field: 'data.__proto__.x', message: expect.any(String) });
  });

  it('refuses arrays and objects over maxEntries', () => {
    expect(findJsonProblem({ icons: new Array(101).fill(0) }, 'params', { maxEntries: 100 })).toEqual({
      field: 'params.icons',
      message: 'must hold at most 100 items',
    });
    expect(
      findJsonProblem({ many: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }, 'params', { maxEntries: 100 }),
    ).toEqual({ field: 'params.many', message: 'must hold at most 100 entries' });
    expect(findJsonProblem({ icons: new Array(100).fill(0) }, 'params', { maxEntries: 100 })).toBeNull();
  });

  it('clips a long path to 64 characters', () => {
    const problem = findJsonProblem({ ['k'.repeat(1000)]: 'a\u0000' }, 'data', { storableText: true });
    expect(problem!.field).toHaveLength(64);
  });
});

describe("findBodyProblem, the edges' one text check", () => {
  it("names a NUL or lone surrogate in any key or value of a body, scope maps' keys included", () => {
    const body = JSON.parse('{"name":"s","tool_scopes":{"ok":["chat:read"],"a\\u0000b":["chat:read"]}}');
    expect(findBodyProblem(body, '')).toEqual({
      field: 'tool_scopes.a\u0000b',
      message: 'its name must not contain a NUL character (U+0000)',
    });
    expect(findBodyProblem({ prompt_scopes: { p: ['x', '\udc00'] } }, '')).toEqual({
      field: 'prompt_scopes.p[1]',
      message: 'must be well-formed Unicode (it holds an unpaired surrogate)',
    });
    expect(findBodyProblem({ resource_scopes: { ['r\ud800']: [] } }, '')).toEqual({
      field: 'resource_scopes.r\ud800',
      message: expect.stringMatching(/^its name .*unpaired surrogate/),
    });
  });

  it('names the field from the root it is given, as MCP params are named', () => {
    expect(findBodyProblem({ name: 'projects', arguments: { data: { x: 'a\u0000' } } }, '')).toMatchObject({ field: 'arguments.data.x' });
    expect(findBodyProblem('a\u0000', 'params')).toMatchObject({ field: 'params' });
  });

  it('passes well-formed text, surrogate pairs included, and still refuses nesting past the limit', () => {
    expect(findBodyProblem({ name: 'deploy 😀', tool_scopes: { ünï: ['chat:read'] }, n: 1, b: null }, '')).toBeNull();
    expect(findBodyProblem({ scopes: nested(32) }, '')).toMatchObject({ message: 'is nested deeper than 32 levels' });
  });
});
