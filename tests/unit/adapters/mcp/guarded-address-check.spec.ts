import { UpstreamRefusal } from '../../../../src/application/ports/upstream-refusal';
import { GuardedAddressCheck } from '../../../../src/adapters/mcp/upstream/guarded-address-check';
import { Resolve, UpstreamAddressGuard } from '../../../../src/adapters/mcp/upstream/upstream-address-guard';

function makeSut(resolve: Resolve, allowlist: string[] = [], timeoutMs = 1000) {
  const logged: string[] = [];
  const sut = new GuardedAddressCheck(new UpstreamAddressGuard(allowlist, resolve), timeoutMs, (m) => logged.push(m));
  return { sut, logged };
}

const resolvesTo =
  (address: string): Resolve =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];

describe('GuardedAddressCheck', () => {
  afterEach(() => jest.useRealTimers());

  it('refuses a host the connection guard refuses, telling only the general message; the address goes to the log', async () => {
    const { sut, logged } = makeSut(resolvesTo('10.1.2.3'));
    const error = await sut.check('https://inside.example.com/mcp').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamRefusal);
    expect((error as Error).message).toBe('upstream address not allowed');
    expect(logged).toEqual([expect.stringContaining('10.1.2.3')]);
  });

  it('refuses a literal loopback or bracketed IPv6 address, and admits what the allowlist names', async () => {
    const never: Resolve = async () => {
      throw new Error('not asked');
    };
    await expect(makeSut(never).sut.check('http://127.0.0.1:8080/mcp')).rejects.toBeInstanceOf(UpstreamRefusal);
    await expect(makeSut(never).sut.check('http://[::1]/mcp')).rejects.toBeInstanceOf(UpstreamRefusal);
    await expect(makeSut(never, ['127.0.0.0/8']).sut.check('http://127.0.0.1:8080/mcp')).resolves.toBeUndefined();
    await expect(makeSut(resolvesTo('93.184.216.34')).sut.check('https://public.example.com/mcp')).resolves.toBeUndefined();
  });

  it('leaves a name that does not resolve, or a resolver slower than the timeout, to the connection-time check', async () => {
    await expect(
      makeSut(async () => {
        throw new Error('ENOTFOUND');
      }).sut.check('https://nowhere.invalid/'),
    ).resolves.toBeUndefined();
    jest.useFakeTimers();
    const slow: Resolve = () => new Promise((resolve) => setTimeout(() => resolve([{ address: '10.0.0.1', family: 4 }]), 200));
    const { sut, logged } = makeSut(slow, [], 20);
    let answered = false;
    const checked = sut.check('https://slow.example.com/').then(() => {
      answered = true;
    });
    await jest.advanceTimersByTimeAsync(19);
    expect(answered).toBe(false);
    await jest.advanceTimersByTimeAsync(1); // the 20 ms timeout
    expect(answered).toBe(true);
    await expect(checked).resolves.toBeUndefined();
    await jest.advanceTimersByTimeAsync(200); // the late refusal is dropped, not left unhandled nor logged
    expect(logged).toEqual([]);
  });
});
