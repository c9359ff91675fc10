import { UnknownResourceError, UpstreamFailedError } from '../../../../domain/errors';
import { ScopeSet } from '../../../../domain/scope';
import { UpstreamReplyError } from '../../../ports/upstream-content.port';
import { ClientRelay, ForwardedRequest } from '../../../ports/upstream-mcp.port';
import { allows, resourceScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { requireText } from './content-input';

export interface ReadUpstreamResourceInput {
  userId: string;
  scopes: ScopeSet;
  /** `keygate://<server>/<upstream URI>` on /mcp; the upstream's own URI in a single server's view. */
  uri: string;
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
 * resources/read: routes a URI as the view names it (`keygate://<server>/<uri>`
 * on /mcp) to that server and reads `<uri>` there, in one contact and without listing first (the scopes come
 * from the record, not the listing), with the caller's own credential for a
 * per-user server (a ConnectionRequiredError without one they could make).
 * Not in that form, no such server, not allowed by the URI's scopes, or
 * refused by the upstream: each is the same UnknownResourceError. The contents come back with URIs named as the view names them.
 */
export class ReadUpstreamResource {
  constructor(private readonly listings: UpstreamListings) {}

  async execute(input: ReadUpstreamResourceInput): Promise<Record<string, unknown>> {
    const uri = requireText(input.uri, 'uri');
    const view = input.view ?? NAMESPACED_VIEW;
    const target = await this.listings.resourceAt(input.userId, view, uri);
    if (target === null || !allows(input.scopes, resourceScopes(target.record, target.name))) throw new UnknownResourceError(uri);
    const { record } = target;
    const caller = { userId: input.userId, subjectToken: input.subjectToken };
    const { session, reach } = await this.listings.openFor(record, caller, input.clientSessionId, input.forwarded, input.relayed);
    let result: Record<string, unknown>;
    try {
      result = await session.readResource(target.name);
    } catch (error) {
      if (!(error instanceof UpstreamReplyError))
        throw new UpstreamFailedError(this.listings.shown(record, 'resources/read failed', error, reach.secrets));
      // Whatever the upstream's code, it read nothing: answered as a URI that does not exist, its reason logged.
      this.listings.shown(record, 'answered resources/read with an error', error, reach.secrets);
      throw new UnknownResourceError(uri);
    } finally {
      await session.close();
    }
    if (result.resultType === 'input_required') return result;
    const contents = Array.isArray(result.contents) ? (result.contents as Record<string, unknown>[]) : [];
    return { ...result, contents: contents.map((content) => ({ ...content, uri: view.uri(target.server, String(content.uri)) })) };
  }
}
