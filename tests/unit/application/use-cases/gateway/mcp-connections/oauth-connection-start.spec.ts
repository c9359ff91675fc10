import { ConnectionAttemptStore } from '../../../../../../src/application/ports/connection-attempt-store.port';
import {
  AuthorizationServerMetadata,
  ClientRegistration,
  RegisterInput,
  UpstreamAuthorization,
} from '../../../../../../src/application/ports/upstream-authorization.port';
import {
  OAuthConnectionStart,
  REGISTRATION_REUSE_MS,
} from '../../../../../../src/application/use-cases/gateway/mcp-connections/oauth-connection-start';
import { ConflictError } from '../../../../../../src/domain/errors';
import { ResourceRecord } from '../../../../../../src/domain/resource/resource-record';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryClientRegistrationStore } from '../../../../../fakes/in-memory-client-registration.store';

const REDIRECT = 'https://keygate.example.com/console/connections/callback';
const DOCUMENT = 'https://keygate.example.com/oauth/client-metadata.json';
const server = { id: 's-1', data: { name: 'linear', url: 'https://mcp.linear.app/mcp' } } as unknown as ResourceRecord;

function makeSut(options: { cimd?: boolean; metadataDocumentUrl?: string | null; redirectUri?: string | null } = {}) {
  const as: AuthorizationServerMetadata = {
    issuer: 'https://as.example',
    authorizationEndpoint: 'https://as.example/auth',
    tokenEndpoint: 'https://as.example/token',
    registrationEndpoint: 'https://as.example/register',
    clientIdMetadataDocumentSupported: options.cimd ?? false,
    issParameterSupported: false,
  };
  const registered: RegisterInput[] = [];
  let n = 0;
  const authorization = {
    discover: jest.fn(async () => ({ resource: 'https://mcp.linear.app/mcp', protectedResource: {}, authorizationServer: as, scopes: [] })),
    register: jest.fn(async (input: RegisterInput): Promise<ClientRegistration> => {
      registered.push(input);
      if (input.given) return { issuer: as.issuer, clientId: input.given.clientId, tokenEndpointAuth: 'none', source: 'given' };
      if (input.metadataDocumentUrl)
        return { issuer: as.issuer, clientId: input.metadataDocumentUrl, tokenEndpointAuth: 'none', source: 'metadata_document' };
      n += 1;
      return {
        issuer: as.issuer,
        clientId: `dyn-${n}`,
        clientSecret: `secret-${n}`,
        tokenEndpointAuth: 'client_secret_basic',
        source: 'dynamic',
      };
    }),
    begin: jest.fn(({ client }: { client: ClientRegistration }) => ({
      authorizationUrl: `https://as.example/auth?client_id=${client.clientId}`,
      state: 's',
    })),
  };
  const save = jest.fn();
  const clock = new FixedClock();
  const registrations = new InMemoryClientRegistrationStore();
  const sut = new OAuthConnectionStart({
    authorization: authorization as unknown as UpstreamAuthorization,
    attempts: { save } as unknown as ConnectionAttemptStore,
    registrations,
    clock,
    redirectUri: options.redirectUri === undefined ? REDIRECT : options.redirectUri,
    metadataDocumentUrl: options.metadataDocumentUrl === undefined ? null : options.metadataDocumentUrl,
  });
  const clientIdOf = async (auth: { type: 'oauth'; client_id?: string } = { type: 'oauth' }) =>
    new URL(await sut.start('u-1', server, auth)).searchParams.get('client_id');
  return { sut, authorization, registered, registrations, clock, save, clientIdOf };
}

describe('OAuthConnectionStart', () => {
  it('without a redirect URI is a ConflictError naming PUBLIC_URL, and asks no authorization server anything', async () => {
    const { sut, authorization, save } = makeSut({ redirectUri: null });
    const failure = await sut.start('u-1', server, { type: 'oauth' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConflictError);
    expect((failure as Error).message).toMatch(/set PUBLIC_URL/);
    expect(authorization.discover).not.toHaveBeenCalled();
    expect(save).not.toHaveBeenCalled();
  });

  it('registers dynamically once per authorization server and redirect URI, reused by every user for a day', async () => {
    const { sut, registered, clock, clientIdOf } = makeSut();
    expect(await clientIdOf()).toBe('dyn-1');
    expect(new URL(await sut.start('u-2', server, { type: 'oauth' })).searchParams.get('client_id')).toBe('dyn-1');
    expect(registered).toHaveLength(1);
    expect(registered[0]).toMatchObject({ redirectUri: REDIRECT, clientName: 'keygate' });
    clock.advance(REGISTRATION_REUSE_MS + 1);
    expect(await clientIdOf()).toBe('dyn-2');
    expect(registered).toHaveLength(2);
  });

  it("uses the record's client as is, and keeps nothing for it", async () => {
    const { registrations, clientIdOf } = makeSut();
    expect(await clientIdOf({ type: 'oauth', client_id: 'given-client' })).toBe('given-client');
    expect(registrations.kept.size).toBe(0);
  });

  it('offers its Client ID Metadata Document URL to a server that takes one, and to no other', async () => {
    expect(await makeSut({ cimd: true, metadataDocumentUrl: DOCUMENT }).clientIdOf()).toBe(DOCUMENT);
    expect(await makeSut({ cimd: false, metadataDocumentUrl: DOCUMENT }).clientIdOf()).toBe('dyn-1');
    // No https public URL, no document: dynamic registration.
    expect(await makeSut({ cimd: true, metadataDocumentUrl: null }).clientIdOf()).toBe('dyn-1');
  });
});
