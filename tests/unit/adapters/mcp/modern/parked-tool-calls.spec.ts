import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../../src/adapters/crypto/aes-gcm-secret-box';
import { modernUnavailable, toMcpError } from '../../../../../src/adapters/mcp/mcp-error-map';
import { ParkedCalls } from '../../../../../src/adapters/mcp/modern/parked-calls';
import { ParkedToolCalls } from '../../../../../src/adapters/mcp/modern/parked-tool-calls';
import { SealedRequestState } from '../../../../../src/adapters/mcp/modern/sealed-request-state';
import { DatabaseUnavailableError } from '../../../../../src/domain/errors';
import { InMemorySessionBusHub } from '../../../../fakes/in-memory-session-bus';

const LIMITS = { callTimeoutMs: 60_000, maxPerReplica: 10, maxPerKey: 2, takeTimeoutMs: 50 };
const binding = { keyId: 'key-1', endpoint: '/mcp', method: 'tools/call', name: 'files__ask' };

/** Two replicas over one bus (which carries JSON, as PostgreSQL does), each with its parked calls, sharing the deployment's state key. */
function makeSut() {
  const hub = new InMemorySessionBusHub();
  const states = new SealedRequestState(new AesGcmSecretBox(randomBytes(32)), { now: () => new Date() });
  let ids = 0;
  const replica = () => new ParkedToolCalls(new ParkedCalls(hub.replica(), LIMITS, Date.now, () => `call-${(ids += 1)}`), states);
  return { a: replica(), b: replica() };
}

describe('ParkedToolCalls', () => {
  it('hands an outage the holder met to the replica the retry reached, which answers it as its own (503 with the id)', async () => {
    const { a, b } = makeSut();
    const first = await a.first({
      binding,
      clientCapabilities: { elicitation: {} },
      signal: new AbortController().signal,
      run: async (upstream) => {
        await upstream!.relay!.request('elicitation/create', { message: 'go on?' });
        // The call's audit write, say, as the runner maps it: -32603 for a 2025 client, and known as an outage.
        throw toMcpError(new DatabaseUnavailableError(), () => undefined);
      },
    });
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { 'keygate-1': { method: 'elicitation/create' } } });
    const failure: unknown = await b
      .retry((first as { requestState: string }).requestState, { 'keygate-1': { action: 'accept' } }, binding)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(modernUnavailable(failure, 'retry-1')).toEqual({
      rejection: {
        httpStatus: 503,
        id: 'retry-1',
        code: -32000,
        message: 'Service Unavailable: The database is not reachable; retry shortly',
      },
      headers: { 'Retry-After': '1' },
    });
  });
});
