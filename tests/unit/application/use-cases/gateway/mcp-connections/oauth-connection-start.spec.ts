import { ConnectionAttemptStore } from '../../../../../../src/application/ports/connection-attempt-store.port';
import { UpstreamAuthorization } from '../../../../../../src/application/ports/upstream-authorization.port';
import { OAuthConnectionStart } from '../../../../../../src/application/use-cases/gateway/mcp-connections/oauth-connection-start';
import { ResourceRecord } from '../../../../../../src/domain/resource/resource-record';
import { ConflictError } from '../../../../../../src/domain/errors';
import { FixedClock } from '../../../../../fakes/fixed-clock';

describe('OAuthConnectionStart without a redirect URI', () => {
  it('is a ConflictError naming PUBLIC_URL, and asks no authorization server anything', async () => {
    const discover = jest.fn();
    const save = jest.fn();
    const sut = new OAuthConnectionStart(
      { discover } as unknown as UpstreamAuthorization,
      { save } as unknown as ConnectionAttemptStore,
      new FixedClock(),
      null,
    );
    const server = { id: 's-1', data: { name: 'linear', url: 'https://mcp.linear.app/mcp' } } as unknown as ResourceRecord;
    const failure = await sut.start('u-1', server, { type: 'oauth' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConflictError);
    expect((failure as Error).message).toMatch(/set PUBLIC_URL/);
    expect(discover).not.toHaveBeenCalled();
    expect(save).not.toHaveBeenCalled();
  });
});
