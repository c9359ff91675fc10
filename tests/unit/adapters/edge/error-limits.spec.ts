import { boundProblem } from '../../../../src/adapters/edge/problem';
import { clipToBytes, MAX_ERROR_BODY_BYTES } from '../../../../src/adapters/edge/error-limits';
import { boundRpcError } from '../../../../src/adapters/mcp/json-rpc';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const problem = (errors: { field: string; message: string }[]) => ({
  type: 'urn:keygate:problem:validation-failed',
  title: 'Invalid request',
  status: 400,
  detail: 'd'.repeat(1_000_000),
  errors,
});

describe('boundProblem', () => {
  it('keeps 20 errors, clips every message to 200 characters, and stays under 16 KiB', () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => ({ field: `scopes[${i}]`, message: 'm'.repeat(10_000) }));
    const bounded = boundProblem(problem(errors));
    expect(bounded.errors).toHaveLength(20);
    expect(bounded.detail).toHaveLength(200);
    expect(bounded.errors!.every((e) => e.message.length <= 200 && e.field.length <= 200)).toBe(true);
    expect(bytes(bounded)).toBeLessThan(MAX_ERROR_BODY_BYTES);
  });

  it('drops errors from the end when escaping would take the body past 16 KiB', () => {
    const control = '\u0001'.repeat(200);
    const bounded = boundProblem(problem(Array.from({ length: 20 }, () => ({ field: control, message: control }))));
    expect(bounded.errors!.length).toBeGreaterThan(0);
    expect(bounded.errors!.length).toBeLessThan(20);
    expect(bytes(bounded)).toBeLessThan(MAX_ERROR_BODY_BYTES);
  });

  it('leaves a small problem as it was', () => {
    const small = { ...problem([{ field: 'name', message: 'must not be empty' }]), detail: 'name: must not be empty' };
    expect(boundProblem(small)).toEqual(small);
  });
});

describe('boundRpcError', () => {
  it('clips the message and keeps 20 entries of any data, however it is shaped', () => {
    const data = {
      list: new Array(500_000).fill('x'.repeat(300)),
      deep: { a: { b: { c: { d: 1 } } } },
      ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])),
    };
    const error = boundRpcError(-32602, 'x'.repeat(27_000), data);
    expect(error.message).toHaveLength(200);
    const bounded = error.data as Record<string, unknown>;
    expect(Object.keys(bounded)).toHaveLength(20);
    expect(bounded.list).toHaveLength(20);
    expect(bounded.deep).toEqual({ a: { b: '…' } });
    expect(bytes(error)).toBeLessThan(MAX_ERROR_BODY_BYTES);
  });

  it('keeps small data as it was, a "__proto__" key as a plain key', () => {
    expect(boundRpcError(-32003, 'Insufficient scope', { required_scopes: ['agents:write'] })).toEqual({
      code: -32003,
      message: 'Insufficient scope',
      data: { required_scopes: ['agents:write'] },
    });
    const data = boundRpcError(-32602, 'm', JSON.parse('{"__proto__":{"polluted":true}}')).data as object;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('clipToBytes', () => {
  it('keeps text whose JSON is under the budget and cuts text that escapes six-fold', () => {
    expect(clipToBytes('short', 8192)).toBe('short');
    expect(bytes(clipToBytes('\u0000'.repeat(100_000), 8192))).toBeLessThan(8192);
    expect(clipToBytes('a'.repeat(100_000), 8192).length).toBeGreaterThan(4000);
  });
});
