import { DomainError } from './domain-error';

/**
 * A call to a server that takes each user's own credential, by a user with
 * none usable: nothing was sent upstream. It carries where the user connects
 * (the console's connect page for the server), never a credential; the edge
 * asks the client to open that page in whatever way the client can take.
 */
export class ConnectionRequiredError extends DomainError {
  readonly code = 'MCP_CONNECTION.REQUIRED';

  constructor(
    readonly server: string,
    readonly connectUrl: string,
  ) {
    super(`The MCP server ${server} needs your own credential: connect to it at ${connectUrl}, then call again`);
  }
}
