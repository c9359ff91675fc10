import { Server } from '@modelcontextprotocol/server';
import { ResourceSubscriptionStore } from '../../application/ports/resource-subscription-store.port';
import { ClientRelay, ForwardedRequest } from '../../application/ports/upstream-mcp.port';
import { SubscribeUpstreamResource } from '../../application/use-cases/gateway/upstream-content/subscribe-upstream-resource.use-case';
import { UnsubscribeUpstreamResource } from '../../application/use-cases/gateway/upstream-content/unsubscribe-upstream-resource.use-case';
import { CheckUpstreamContentAccess } from '../../application/use-cases/gateway/upstream-content/check-upstream-content-access.use-case';
import { CompleteUpstreamArgument } from '../../application/use-cases/gateway/upstream-content/complete-upstream-argument.use-case';
import { GetUpstreamPrompt } from '../../application/use-cases/gateway/upstream-content/get-upstream-prompt.use-case';
import { ItemPage, MAX_PAGE_BYTES } from '../../application/use-cases/gateway/upstream-content/item-page';
import { ListUpstreamPrompts } from '../../application/use-cases/gateway/upstream-content/list-upstream-prompts.use-case';
import { ListUpstreamResourceTemplates } from '../../application/use-cases/gateway/upstream-content/list-upstream-resource-templates.use-case';
import { ListUpstreamResources } from '../../application/use-cases/gateway/upstream-content/list-upstream-resources.use-case';
import { ReadUpstreamResource } from '../../application/use-cases/gateway/upstream-content/read-upstream-resource.use-case';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { UpstreamView } from '../../application/use-cases/gateway/external/upstream-view';
import { EndpointCapabilities, KEYGATE_CAPABILITIES } from '../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { unchecked } from '../unchecked';
import { ANY_PARAMS } from './any-params';
import { tracedRequest } from './modern/forwarded-meta';
import { RPC } from './json-rpc';
import { keepResourceNotFound } from './legacy-resource-not-found';
import { connectionError, toMcpError } from './mcp-error-map';
import { ConnectionRequiredError } from '../../domain/errors';
import { RpcError } from './rpc-error';

/** The use-cases behind the upstream servers' resources, prompts and completion on /mcp. */
export interface UpstreamContentUseCases {
  listResources: ListUpstreamResources;
  listResourceTemplates: ListUpstreamResourceTemplates;
  readResource: ReadUpstreamResource;
  listPrompts: ListUpstreamPrompts;
  getPrompt: GetUpstreamPrompt;
  complete: CompleteUpstreamArgument;
  subscribe: SubscribeUpstreamResource;
  unsubscribe: UnsubscribeUpstreamResource;
  /** Asked again by a later round of a read or prompt held for its client's input (2026-07-28 parked calls). */
  checkAccess: CheckUpstreamContentAccess;
}

/** Where sessions' subscriptions are kept, and how many one session may hold (MCP_MAX_SUBSCRIPTIONS_PER_SESSION). */
export interface SubscriptionSettings {
  store: ResourceSubscriptionStore;
  maxPerSession: number;
}

/** The use-cases over one set of upstream listings (the container's wiring, and the tests'). */
export function upstreamContentUseCases(listings: UpstreamListings, subscriptions: SubscriptionSettings): UpstreamContentUseCases {
  return {
    listResources: new ListUpstreamResources(listings),
    listResourceTemplates: new ListUpstreamResourceTemplates(listings),
    readResource: new ReadUpstreamResource(listings),
    listPrompts: new ListUpstreamPrompts(listings),
    getPrompt: new GetUpstreamPrompt(listings),
    complete: new CompleteUpstreamArgument(listings),
    subscribe: new SubscribeUpstreamResource(listings, subscriptions.store, subscriptions.maxPerSession),
    unsubscribe: new UnsubscribeUpstreamResource(listings, subscriptions.store),
    checkAccess: new CheckUpstreamContentAccess(listings),
  };
}

type Params = Record<string, unknown>;

/** The content methods keygate answers from its upstreams. */
export type ContentMethod =
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'resources/subscribe'
  | 'resources/unsubscribe'
  | 'prompts/list'
  | 'prompts/get'
  | 'completion/complete';

/**
 * One content method's answer to its params (and what a 2026 client passes on to the upstream, and its relay of
 * a 2025 upstream's requests), errors thrown as they come (each era maps them at its own edge).
 */
export type ContentAnswer = (params: Params, forwarded?: ForwardedRequest, relayed?: ClientRelay) => Promise<Record<string, unknown>>;

/**
 * Registers the handlers on a request's SDK server, bound to its key and
 * to the endpoint's view (/mcp's when left out): those of the `declared`
 * capabilities the server was made with (the SDK refuses a handler for an
 * undeclared one).
 * A list page holds MAX_PAGE_BYTES of items' JSON, or its share when a batch
 * of `messages` shares the answer. A read or prompt of a per-user server the
 * caller has no credential for asks them to connect (connectionError).
 */
export function serveUpstreamContent(
  server: Server,
  useCases: UpstreamContentUseCases,
  principal: KeyPrincipal,
  messages: number,
  log: (error: unknown) => void,
  clientSessionId?: string,
  view?: UpstreamView,
  declared: EndpointCapabilities = KEYGATE_CAPABILITIES,
  /** The origin a session that declared URL elicitation reached keygate at (SessionCall.connectBase). */
  connectBase?: string,
): void {
  for (const [method, answer] of upstreamContentAnswers(useCases, principal, messages, clientSessionId, view, declared)) {
    // ANY_PARAMS: the use-cases check the params (-32602), not the SDK's schemas (-32603).
    server.setRequestHandler(method, { params: ANY_PARAMS }, async (params, ctx) => {
      try {
        return await answer(params, tracedRequest(params._meta));
      } catch (error) {
        const answered = error instanceof ConnectionRequiredError ? connectionError(error, connectBase, log) : toMcpError(error, log);
        if (answered.code === RPC.RESOURCE_NOT_FOUND) keepResourceNotFound(server, ctx.mcpReq.id);
        throw answered;
      }
    });
  }
}

/**
 * The answers of the content methods of the `declared` capabilities, over
 * the use-cases, bound to a key and an endpoint's view: both eras' servers
 * register these, so scopes (resource_scopes, prompt_scopes), limits and
 * audit are the same in each.
 */
export function upstreamContentAnswers(
  useCases: UpstreamContentUseCases,
  principal: KeyPrincipal,
  messages: number,
  clientSessionId: string | undefined,
  view: UpstreamView | undefined,
  declared: EndpointCapabilities,
): Array<[ContentMethod, ContentAnswer]> {
  const { userId, scopes } = principal;
  // The OAuth access token the caller came with: a token_exchange server's upstream token is made from it.
  const subjectToken = principal.accessToken?.token;
  const pageBytes = Math.floor(MAX_PAGE_BYTES / messages);
  const page = (params: Params) => ({ userId, scopes, cursor: unchecked<string>(params.cursor), pageBytes, view, subjectToken });
  const answers: Array<[ContentMethod, ContentAnswer]> = [];
  if (declared.resources) {
    answers.push(
      ['resources/list', async (params) => paged('resources', await useCases.listResources.execute(page(params)))],
      [
        'resources/templates/list',
        async (params) => paged('resourceTemplates', await useCases.listResourceTemplates.execute(page(params))),
      ],
      [
        'resources/read',
        (params, forwarded, relayed) =>
          useCases.readResource.execute({
            userId,
            scopes,
            uri: unchecked(params.uri),
            clientSessionId,
            view,
            forwarded,
            relayed,
            subjectToken,
          }),
      ],
    );
  }
  if (declared.resources?.subscribe) {
    answers.push(
      [
        'resources/subscribe',
        (params) =>
          useCases.subscribe.execute({
            userId,
            scopes,
            uri: unchecked(params.uri),
            clientSessionId: inSession(clientSessionId, 'resources/subscribe'),
            view,
          }),
      ],
      [
        'resources/unsubscribe',
        (params) =>
          useCases.unsubscribe.execute({
            userId,
            uri: unchecked(params.uri),
            clientSessionId: inSession(clientSessionId, 'resources/unsubscribe'),
            view,
          }),
      ],
    );
  }
  if (declared.prompts) {
    answers.push(
      ['prompts/list', async (params) => paged('prompts', await useCases.listPrompts.execute(page(params)))],
      [
        'prompts/get',
        (params, forwarded, relayed) =>
          useCases.getPrompt.execute({
            userId,
            scopes,
            name: unchecked(params.name),
            arguments: unchecked(params.arguments),
            clientSessionId,
            view,
            forwarded,
            relayed,
            subjectToken,
          }),
      ],
    );
  }
  if (declared.completions) {
    answers.push([
      'completion/complete',
      (params) =>
        useCases.complete.execute({
          userId,
          scopes,
          ref: unchecked(params.ref),
          argument: unchecked(params.argument),
          context: unchecked(params.context),
          clientSessionId,
          view,
          subjectToken,
        }),
    ]);
  }
  return answers;
}

/** A subscription lives in a session and its updates travel on the session's stream: without one there is nothing to keep it in. */
function inSession(clientSessionId: string | undefined, method: string): string {
  if (clientSessionId !== undefined) return clientSessionId;
  throw new RpcError(
    RPC.INVALID_REQUEST,
    `${method} needs an MCP session: send initialize, then its Mcp-Session-Id with this request and open the session's GET stream`,
  );
}

function paged(field: string, { items, nextCursor }: ItemPage<unknown>): Record<string, unknown> {
  return { [field]: items, ...(nextCursor !== undefined && { nextCursor }) };
}
