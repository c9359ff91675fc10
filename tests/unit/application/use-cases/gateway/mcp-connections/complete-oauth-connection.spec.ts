import { ConnectionAttemptStore } from '../../../../../../src/application/ports/connection-attempt-store.port';
import {
  PendingAuthorization,
  UpstreamAuthorization,
  UpstreamAuthorizationError,
} from '../../../../../../src/application/ports/upstream-authorization.port';
import { CompleteOAuthConnection } from '../../../../../../src/application/use-cases/gateway/mcp-connections/complete-oauth-connection.use-case';
import { ValidationError } from '../../../../../../src/domain/errors';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryClientRegistrationStore } from '../../../../../fakes/in-memory-client-registration.store';
import { InMemoryUnitOfWork } from '../../../../../fakes/in-memory-unit-of-work';
import { ActorMother } from '../../../../../mothers/actor.mother';

const client = { issuer: 'https://as.example', clientId: 'dyn-1', tokenEndpointAuth: 'none' as const, source: 'dynamic' as const };
const pending = { state: 'st', client, redirectUri: 'https://k.example/console/connections/callback' } as unknown as PendingAuthorization;

async function makeSut(failure: Error) {
  const clock = new FixedClock();
  const registrations = new InMemoryClientRegistrationStore();
  await registrations.save(client, pending.redirectUri, clock.now());
  const alice = ActorMother.user();
  const attempts = {
    take: jest.fn(async (_state: string, userId: string) =>
      userId === alice.userId ? { userId, serverId: 's-1', pending, expiresAt: clock.now() } : null,
    ),
  } as unknown as ConnectionAttemptStore;
  const authorization = { complete: jest.fn(async () => Promise.reject(failure)) } as unknown as UpstreamAuthorization;
  const sut = new CompleteOAuthConnection(attempts, authorization, new InMemoryUnitOfWork(), clock, registrations);
  const run = () => sut.execute({ caller: { kind: 'user', actor: alice }, callback: { state: 'st', code: 'c' } });
  return { run, registrations, clock };
}

describe('CompleteOAuthConnection when the token endpoint refuses', () => {
  it('forgets the kept dynamic registration the server answers invalid_client for, so the next connect registers again', async () => {
    const { run, registrations, clock } = await makeSut(new UpstreamAuthorizationError('grant_refused', 'refused', 'invalid_client'));
    await expect(run()).rejects.toBeInstanceOf(ValidationError);
    expect(await registrations.find(client.issuer, pending.redirectUri, new Date(clock.now().getTime() - 1))).toBeNull();
  });

  it('keeps it for any other refusal', async () => {
    const { run, registrations, clock } = await makeSut(new UpstreamAuthorizationError('grant_refused', 'refused', 'invalid_grant'));
    await expect(run()).rejects.toBeInstanceOf(ValidationError);
    expect(await registrations.find(client.issuer, pending.redirectUri, new Date(clock.now().getTime() - 1))).toEqual(client);
  });
});
