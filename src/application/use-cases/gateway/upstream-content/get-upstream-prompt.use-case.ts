import { UnknownReferenceError } from '../../../../domain/errors';
import { ScopeSet } from '../../../../domain/scope';
import { ClientRelay, ForwardedRequest } from '../../../ports/upstream-mcp.port';
import { allows, promptScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { optionalStrings, requireText } from './content-input';

export interface GetUpstreamPromptInput {
  userId: string;
  scopes: ScopeSet;
  /** `<server>__<prompt>` on /mcp; the upstream's own name in a single server's view. */
  name: string;
  arguments?: Record<string, string>;
  /** The client's MCP session (internal id), whose session with the upstream is used; absent when stateless. */
  clientSessionId?: string;
  /** The endpoint's view: which servers, and how their items are named; /mcp's when left out. */
  view?: UpstreamView;
  /** What a 2026-07-28 client's request passes on; with its `input`, an upstream's input_required answer is returned as it came. */
  forwarded?: ForwardedRequest;
  /** A 2026-07-28 client's relay for what a 2025 upstream asks during the request. */
  relayed?: ClientRelay;
  /** The OAuth access token the caller came with (secret; absent for a key), for token_exchange servers. */
  subjectToken?: string;
}

/**
 * prompts/get: routes a prompt as the view names it (`<server>__<prompt>` on /mcp) to that server and gets `<prompt>`
 * there, only when the caller may see it and the server's listing names it
 * (cached, or read in the same contact), so a hidden prompt and one that does
 * not exist answer alike. The messages are relayed as they came. A per-user
 * server is asked with the caller's own credential (withListed).
 */
export class GetUpstreamPrompt {
  constructor(private readonly listings: UpstreamListings) {}

  async execute(input: GetUpstreamPromptInput): Promise<Record<string, unknown>> {
    const name = requireText(input.name, 'name');
    const args = optionalStrings(input.arguments, 'arguments');
    const target = (input.view ?? NAMESPACED_VIEW).splitPrompt(name);
    const record = target === null ? null : await this.listings.server(input.userId, target.server);
    if (target === null || record === null || !allows(input.scopes, promptScopes(record, target.name)))
      throw new UnknownReferenceError('prompt', name);
    const result = await this.listings.withListed(
      { userId: input.userId, subjectToken: input.subjectToken },
      record,
      'prompts',
      'name',
      target.name,
      'prompts/get',
      (session) => session.getPrompt(target.name, args),
      input.clientSessionId,
      input.forwarded,
      input.relayed,
    );
    if (result === null) throw new UnknownReferenceError('prompt', name);
    return result;
  }
}
