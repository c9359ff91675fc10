import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema, RequestSchema, ServerResult, SubscribeRequestSchema, UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ResourceSubscriptionStore } from '../../application/ports/resource-subscription-store.port';
import { ForwardedRequest } from '../../application/ports/upstream-mcp.port';
import { SubscribeUpstreamResource } from '../../application/use-cases/upstream-content/subscribe-upstream-resource.use-case';
import { UnsubscribeUpstreamResource } from '../../application/use-cases/upstream-content/unsubscribe-upstream-resource.use-case';
import { CompleteUpstreamArgument } from '../../application/use-cases/upstream-content/complete-upstream-argument.use-case';
import { GetUpstreamPrompt } from '../../application/use-cases/upstream-content/get-upstream-prompt.use-case';
import { ItemPage, MAX_PAGE_BYTES } from '../../application/use-cases/upstream-content/item-page';
import { ListUpstreamPrompts } from '../../application/use-cases/upstream-content/list-upstream-prompts.use-case';
import { ListUpstreamResourceTemplates } from '../../application/use-cases/upstream-content/list-upstream-resource-templates.use-case';
import { ListUpstreamResources } from '../../application/use-cases/upstream-content/list-upstream-resources.use-case';
import { ReadUpstreamResource } from '../../application/use-cases/upstream-content/read-upstream-resource.use-case';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { UpstreamListings } from '../../application/use-cases/tools/external/upstream-listings';
import { UpstreamView } from '../../application/use-cases/tools/external/upstream-view';
import { EndpointCapabilities, KEYGATE_CAPABILITIES } from '../../application/use-cases/upstream-view/endpoint-capabilities';
import { unchecked } from '../unchecked';
import { RPC } from './json-rpc';
import { toMcpError } from './mcp-error-map';
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
  };
}

// As for tools: the SDK's own params schemas would answer a wrong type -32603
// and drop what they do not know; these take any params object, and the
// use-cases parse them and answer -32602. Built once: a request makes a server.
const LOOSE = {
  listResources: ListResourcesRequestSchema.extend({ params: RequestSchema.shape.params }),
  listResourceTemplates: ListResourceTemplatesRequestSchema.extend({ params: RequestSchema.shape.params }),
  readResource: ReadResourceRequestSchema.extend({ params: RequestSchema.shape.params }),
  listPrompts: ListPromptsRequestSchema.extend({ params: RequestSchema.shape.params }),
  getPrompt: GetPromptRequestSchema.extend({ params: RequestSchema.shape.params }),
  complete: CompleteRequestSchema.extend({ params: RequestSchema.shape.params }),
  subscribe: SubscribeRequestSchema.extend({ params: RequestSchema.shape.params }),
  unsubscribe: UnsubscribeRequestSchema.extend({ params: RequestSchema.shape.params }),
};

type Params = Record<string, unknown>;

/** The content methods keygate answers from its upstreams. */
export type ContentMethod = keyof typeof METHODS;

/** One content method's answer to its params (and what a 2026 client passes on to the upstream), errors thrown as they come (each era maps them at its own edge). */
export type ContentAnswer = (params: Params, forwarded?: ForwardedRequest) => Promise<Record<string, unknown>>;

const METHODS = {
  'resources/list': LOOSE.listResources,
  'resources/templates/list': LOOSE.listResourceTemplates,
  'resources/read': LOOSE.readResource,
  'resources/subscribe': LOOSE.subscribe,
  'resources/unsubscribe': LOOSE.unsubscribe,
  'prompts/list': LOOSE.listPrompts,
  'prompts/get': LOOSE.getPrompt,
  'completion/complete': LOOSE.complete,
};

/**
 * Registers the handlers on a request's SDK server, bound to its key and
 * to the endpoint's view (/mcp's when left out): those of the `declared`
 * capabilities the server was made with (the SDK refuses a handler for an
 * undeclared one).
 * A list page holds MAX_PAGE_BYTES of items' JSON, or its share when a batch
 * of `messages` shares the answer.
 */
export function serveUpstreamContent(server: Server, useCases: UpstreamContentUseCases, principal: KeyPrincipal, messages: number,
  log: (error: unknown) => void, clientSessionId?: string, view?: UpstreamView, declared: EndpointCapabilities = KEYGATE_CAPABILITIES): void {
  for (const [method, answer] of upstreamContentAnswers(useCases, principal, messages, clientSessionId, view, declared)) {
    server.setRequestHandler(METHODS[method], async (request) => {
      try {
        return (await answer((request.params ?? {}) as Params)) as ServerResult;
      } catch (error) {
        throw toMcpError(error, log);
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
export function upstreamContentAnswers(useCases: UpstreamContentUseCases, principal: KeyPrincipal, messages: number,
  clientSessionId: string | undefined, view: UpstreamView | undefined, declared: EndpointCapabilities): Array<[ContentMethod, ContentAnswer]> {
  const { userId, scopes } = principal;
  const pageBytes = Math.floor(MAX_PAGE_BYTES / messages);
  const page = (params: Params) => ({ userId, scopes, cursor: unchecked<string>(params.cursor), pageBytes, view });
  const answers: Array<[ContentMethod, ContentAnswer]> = [];
  if (declared.resources) {
    answers.push(
      ['resources/list', async (params) => paged('resources', await useCases.listResources.execute(page(params)))],
      ['resources/templates/list', async (params) => paged('resourceTemplates', await useCases.listResourceTemplates.execute(page(params)))],
      ['resources/read', (params, forwarded) => useCases.readResource.execute({ userId, scopes, uri: unchecked(params.uri), clientSessionId, view, forwarded })],
    );
  }
  if (declared.resources?.subscribe) {
    answers.push(
      ['resources/subscribe', (params) => useCases.subscribe.execute({
        userId, scopes, uri: unchecked(params.uri), clientSessionId: inSession(clientSessionId, 'resources/subscribe'), view,
      })],
      ['resources/unsubscribe', (params) => useCases.unsubscribe.execute({
        userId, uri: unchecked(params.uri), clientSessionId: inSession(clientSessionId, 'resources/unsubscribe'), view,
      })],
    );
  }
  if (declared.prompts) {
    answers.push(
      ['prompts/list', async (params) => paged('prompts', await useCases.listPrompts.execute(page(params)))],
      ['prompts/get', (params, forwarded) => useCases.getPrompt.execute({
        userId, scopes, name: unchecked(params.name), arguments: unchecked(params.arguments), clientSessionId, view, forwarded,
      })],
    );
  }
  if (declared.completions) {
    answers.push(['completion/complete', (params) => useCases.complete.execute({
      userId, scopes, ref: unchecked(params.ref), argument: unchecked(params.argument), context: unchecked(params.context), clientSessionId, view,
    })]);
  }
  return answers;
}

/** A subscription lives in a session and its updates travel on the session's stream: without one there is nothing to keep it in. */
function inSession(clientSessionId: string | undefined, method: string): string {
  if (clientSessionId !== undefined) return clientSessionId;
  throw new RpcError(RPC.INVALID_REQUEST, `${method} needs an MCP session: send initialize, then its Mcp-Session-Id with this request and open the session's GET stream`);
}

function paged(field: string, { items, nextCursor }: ItemPage<unknown>): Record<string, unknown> {
  return { [field]: items, ...(nextCursor !== undefined && { nextCursor }) };
}
