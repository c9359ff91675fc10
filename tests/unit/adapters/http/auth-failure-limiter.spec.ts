import { AuthFailureLimiter } from '../../../../src/adapters/http/middleware/auth-failure-limiter';

const makeSut = (maxTrackedClients?: number) => new AuthFailureLimiter({ limit: 3, windowSeconds: 60, maxTrackedClients });

describe('AuthFailureLimiter', () => {
  it('lets a client fail up to the limit, then refuses it until the window ends', () => {
    const sut = makeSut();
    for (let i = 0; i < 3; i++) {
      expect(sut.retryAfterSeconds('1.2.3.4', 0)).toBeNull();
      sut.recordFailure('1.2.3.4', i * 1000);
    }
    expect(sut.retryAfterSeconds('1.2.3.4', 2_000)).toBe(58);
    expect(sut.retryAfterSeconds('1.2.3.4', 59_500)).toBe(1);
    expect(sut.retryAfterSeconds('1.2.3.4', 60_000)).toBeNull();
  });

  it('counts each client on its own', () => {
    const sut = makeSut();
    for (let i = 0; i < 3; i++) sut.recordFailure('1.2.3.4', 0);
    expect(sut.retryAfterSeconds('1.2.3.4', 0)).not.toBeNull();
    expect(sut.retryAfterSeconds('5.6.7.8', 0)).toBeNull();
  });

  it('starts a new window after the old one ends', () => {
    const sut = makeSut();
    sut.recordFailure('a', 0);
    sut.recordFailure('a', 1_000);
    sut.recordFailure('a', 61_000);
    sut.recordFailure('a', 62_000);
    expect(sut.retryAfterSeconds('a', 62_000)).toBeNull();
    sut.recordFailure('a', 63_000);
    expect(sut.retryAfterSeconds('a', 63_000)).toBe(58);
  });

  it('keeps at most maxTrackedClients entries under a flood of distinct addresses', () => {
    const sut = makeSut(100);
    for (let i = 0; i < 10_000; i++) sut.recordFailure(`10.0.${i >> 8}.${i & 255}`, 0);
    expect(sut.trackedClients).toBe(100);
  });

  it('drops the client that failed least recently when full', () => {
    const sut = makeSut(2);
    for (let i = 0; i < 3; i++) sut.recordFailure('old', 0);
    for (let i = 0; i < 3; i++) sut.recordFailure('recent', 0);
    for (let i = 0; i < 3; i++) sut.recordFailure('old', 0);
    sut.recordFailure('new', 0);
    expect(sut.retryAfterSeconds('old', 0)).not.toBeNull();
    expect(sut.retryAfterSeconds('recent', 0)).toBeNull();
  });
});
