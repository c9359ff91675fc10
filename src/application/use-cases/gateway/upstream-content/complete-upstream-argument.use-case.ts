import { UnknownReferenceError, ValidationError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ScopeSet } from '../../../../domain/scope';
import { ItemKind, UpstreamCompletion } from '../../../ports/upstream-content.port';
import { isObject } from '../built-in/tool-command';
import { allows, promptScopes, templateScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { UpstreamName } from '../external/upstream-names';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { MAX_URI_CHARS, optionalStrings, requireText } from './content-input';

export interface CompleteUpstreamArgumentInput {
  userId: string;
  scopes: ScopeSet;
  /** `{ type: 'ref/prompt', name: '<server>__<prompt>' }` or `{ type: 'ref/resource', uri: 'keygate://<server>/<template>' }` on /mcp. */
  ref: { type: string; name?: string; uri?: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
  /** The client's MCP session (internal id), whose session with the upstream is used; absent when stateless. */
  clientSessionId?: string;
  /** The endpoint's view: which servers, and how their items are named; /mcp's when left out. */
  view?: UpstreamView;
  /** The OAuth access token the caller came with (secret; absent for a key), for token_exchange servers. */
  subjectToken?: string;
}

/** How each kind of ref is read, checked and handed upstream. */
interface RefKind {
  kind: ItemKind;
  field: 'name' | 'uri';
  listedBy: string;
  shown: 'prompt' | 'resource template';
  split(view: UpstreamView, text: string): UpstreamName | null;
  scopes(record: ResourceRecord, name: string): readonly string[];
  upstream(name: string): UpstreamCompletion['ref'];
}

const REFS: Record<string, RefKind> = {
  'ref/prompt': {
    kind: 'prompts',
    field: 'name',
    listedBy: 'name',
    shown: 'prompt',
    split: (view, text) => view.splitPrompt(text),
    scopes: promptScopes,
    upstream: (name) => ({ type: 'ref/prompt', name }),
  },
  'ref/resource': {
    kind: 'resourceTemplates',
    field: 'uri',
    listedBy: 'uriTemplate',
    shown: 'resource template',
    split: (view, text) => view.splitUri(text),
    scopes: templateScopes,
    upstream: (uri) => ({ type: 'ref/resource', uri }),
  },
};

/**
 * completion/complete for a prompt or resource template as the view names it: routed to
 * its server with the upstream's own ref, when the caller may see the item
 * and the server lists it (as GetUpstreamPrompt); an unknown or hidden ref is
 * an UnknownReferenceError. A server without completions offers none.
 */
export class CompleteUpstreamArgument {
  constructor(private readonly listings: UpstreamListings) {}

  async execute(input: CompleteUpstreamArgumentInput): Promise<Record<string, unknown>> {
    const type = isObject(input.ref) && typeof input.ref.type === 'string' ? input.ref.type : '';
    if (!Object.hasOwn(REFS, type)) throw ValidationError.single('ref.type', `must be ${Object.keys(REFS).join(' or ')}`);
    const ref = REFS[type];
    const text = requireText(input.ref[ref.field], `ref.${ref.field}`);
    const argument = isObject(input.argument) ? input.argument : undefined;
    const name = requireText(argument?.name, 'argument.name');
    const value = argument?.value;
    if (typeof value !== 'string' || value.length > MAX_URI_CHARS)
      throw ValidationError.single('argument.value', `must be a string of at most ${MAX_URI_CHARS} characters`);
    if (input.context !== undefined && !isObject(input.context)) throw ValidationError.single('context', 'must be an object');
    const context = optionalStrings(input.context?.arguments, 'context.arguments');
    const target = ref.split(input.view ?? NAMESPACED_VIEW, text);
    const record = target === null ? null : await this.listings.server(input.userId, target.server);
    if (target === null || record === null || !allows(input.scopes, ref.scopes(record, target.name)))
      throw new UnknownReferenceError(ref.shown, text);
    const request: UpstreamCompletion = {
      ref: ref.upstream(target.name),
      argument: { name, value },
      ...(context !== undefined && { context: { arguments: context } }),
    };
    const result = await this.listings.withListed(
      { userId: input.userId, subjectToken: input.subjectToken },
      record,
      ref.kind,
      ref.listedBy,
      target.name,
      'completion/complete',
      (session) => session.complete(request),
      input.clientSessionId,
    );
    if (result === null) throw new UnknownReferenceError(ref.shown, text);
    return result;
  }
}
