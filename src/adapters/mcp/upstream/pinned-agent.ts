import { Agent, buildConnector } from 'undici';
import { UpstreamAddressGuard } from './upstream-address-guard';

/**
 * An undici dispatcher whose every new connection goes to the address the
 * guard checked, not to a second DNS answer. Only the socket's target
 * changes: the Host header and the TLS server name (and so certificate
 * checks) keep the name from the URL. Redirects, which undici follows itself,
 * pass through here too. `tls` adds trust (a CA) for tests that serve https on loopback.
 */
export function pinnedAgent(guard: UpstreamAddressGuard, connectTimeoutMs: number, tls: { ca?: string } = {}): Agent {
  const connect = buildConnector({ timeout: connectTimeoutMs, ...tls });
  return new Agent({
    connect: (options, callback) => {
      guard.pin(options.hostname).then(
        (address) => connect({ ...options, hostname: address }, callback),
        (error: Error) => callback(error, null),
      );
    },
  });
}
