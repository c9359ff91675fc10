import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  inputRequired,
  inputResponse,
  ProtocolError,
  Server,
  ServerNotifier,
} from '@modelcontextprotocol/server';
import { startUpstream } from './upstream-mcp-server';
import { listenLoopback } from './listen-loopback';

/**
 * How an SDK v2 test upstream serves: `modern` 2026-07-28 only
 * (createMcpHandler with legacy 'reject'), `dual` both eras on one endpoint
 * (classifyInboundRequest, then the modern handler or a sessionful 2025
 * transport, as the SDK's own conformance everythingServer does), `legacy`
 * today's SDK v1 upstream.
 */
export type V2UpstreamMode = 'modern' | 'dual' | 'legacy';

export interface V2Upstream {
  url: string;
  /** `method era` of every request it served (`era` is modern or legacy); the v1 upstream records none. */
  seen: string[];
  /** server/discover requests it received. */
  discovers: number;
  /** When set, every request is left unanswered (an upstream that stopped answering). */
  silent: boolean;
  /** The `io.modelcontextprotocol/clientCapabilities` of every tools/call it served, in order. */
  clientCapabilities: unknown[];
  /** What every tools/call, resources/read and prompts/get it served carried: `_meta` (the envelope lifted out), logLevel, retry fields. */
  received: Received[];
  /** What tools/list serves (modern and dual); push to it, then `notify.toolsChanged()`. */
  tools: unknown[];
  /** The traceparent header of every request it received (modern and dual), undefined when absent. */
  traceparents: (string | undefined)[];
  /** Publishes to the modern leg's subscriptions/listen streams (modern and dual). */
  notify?: ServerNotifier;
  /** Every request as it came on the wire (modern and dual). */
  requests: RawRequest[];
  /** Forgets every 2025 session (dual): its next request in one is a 404, as after a restart. */
  forget(): void;
  stop(): Promise<void>;
}

export interface RawRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Received {
  method: string;
  meta: unknown;
  logLevel: unknown;
  inputResponses: unknown;
  requestState: unknown;
}

/** The requestState `steps` gives on its first and second rounds: it must never reach the client as such. */
export const UPSTREAM_STATES = ['upstream-own-state-one', 'upstream-own-state-two'];

const TOOLS = [
  { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'secret', description: 'Guarded by tool_scopes', inputSchema: { type: 'object' } },
  { name: 'ask', description: 'Asks the client for input (elicitation)', inputSchema: { type: 'object' } },
  { name: 'think', description: "Asks the client's model (sampling)", inputSchema: { type: 'object' } },
  { name: 'where', description: 'Asks the client for its roots', inputSchema: { type: 'object' } },
  { name: 'count', description: 'Reports progress twice, then answers', inputSchema: { type: 'object' } },
  {
    name: 'note',
    description: 'Logs one message (2026: only when the request names a logLevel) and touches what the session subscribed to',
    inputSchema: { type: 'object' },
  },
  {
    name: 'steps',
    description: 'Asks twice (elicitation, then sampling), keeping its own requestState between rounds',
    inputSchema: { type: 'object' },
  },
  {
    name: 'both',
    description: 'Asks for elicitation and sampling in one round, or sampling only when the client lacks elicitation',
    inputSchema: { type: 'object' },
  },
  { name: 'forever', description: 'Asks again on every round', inputSchema: { type: 'object' } },
  { name: 'log', description: 'Logs at debug and at warning, then answers', inputSchema: { type: 'object' } },
] as never[];
const RESOURCES = [{ uri: 'file:///notes/a.txt', name: 'a', mimeType: 'text/plain' }];
const TEMPLATES = [{ uriTemplate: 'file:///notes/{name}', name: 'note', mimeType: 'text/plain' }];
const PROMPTS = [
  { name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] },
  { name: 'interview', description: 'Asks for a name first' },
];
const ASK_NAME = inputRequired.elicit({
  message: 'Your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
});

function serverFor(
  label: string,
  era: string,
  seen: string[],
  capabilities: unknown[] = [],
  received: Received[] = [],
  tools: unknown[] = TOOLS,
): Server {
  const server = new Server(
    { name: `v2-${label}`, version: '2.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
    },
  );
  const log = <T>(method: string, answer: T): T => (seen.push(`${method} ${era}`), answer);
  const subscribed = new Set<string>();
  const receive = (method: string, meta: unknown, ctx: { mcpReq: unknown }) => {
    const req = ctx.mcpReq as { envelope?: Record<string, unknown>; inputResponses?: unknown; requestState(): unknown };
    received.push({
      method,
      meta,
      logLevel: req.envelope?.['io.modelcontextprotocol/logLevel'],
      inputResponses: req.inputResponses,
      requestState: req.requestState(),
    });
  };
  server.setRequestHandler('tools/list', async () => log('tools/list', { tools: tools as never[] }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    log('tools/call', null);
    const { name, arguments: args } = request.params;
    const progressToken = (request.params._meta as { progressToken?: string | number } | undefined)?.progressToken;
    if (name === 'count' && progressToken !== undefined) {
      for (const progress of [1, 2])
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 2 } });
    }
    capabilities.push((ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope?.['io.modelcontextprotocol/clientCapabilities']);
    receive('tools/call', request.params._meta, ctx);
    if (name === 'note') {
      await ctx.mcpReq.log('info', `${label}: noted`, label);
      for (const uri of subscribed) await server.sendResourceUpdated({ uri });
    }
    // Asked on the first round; the retry carries the client's answer, which the result repeats.
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'input');
    if (name === 'ask') {
      if (answer.kind === 'elicit')
        return { content: [{ type: 'text', text: `${label}: ${answer.action} ${JSON.stringify(answer.content ?? {})}` }] };
      return inputRequired({
        inputRequests: {
          input: inputRequired.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          }),
        },
      });
    }
    if (name === 'think') {
      if (answer.kind === 'sampling')
        return { content: [{ type: 'text', text: `${label}: the model said ${JSON.stringify(answer.result.content)}` }] };
      return inputRequired({
        inputRequests: {
          input: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: '2 + 2?' } }], maxTokens: 5 }),
        },
      });
    }
    if (name === 'where') {
      if (answer.kind === 'roots')
        return { content: [{ type: 'text', text: `${label}: roots ${answer.roots.map((root) => root.uri).join(' ')}` }] };
      return inputRequired({ inputRequests: { input: inputRequired.listRoots() } });
    }
    if (name === 'steps') {
      const state = ctx.mcpReq.requestState();
      if (state === UPSTREAM_STATES[0] && answer.kind === 'elicit') {
        return inputRequired({
          inputRequests: {
            model: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi?' } }], maxTokens: 5 }),
          },
          requestState: UPSTREAM_STATES[1],
        });
      }
      const model = inputResponse(ctx.mcpReq.inputResponses, 'model');
      if (state === UPSTREAM_STATES[1] && model.kind === 'sampling')
        return { content: [{ type: 'text', text: `${label}: two rounds, the model said ${JSON.stringify(model.result.content)}` }] };
      return inputRequired({ inputRequests: { input: ASK_NAME }, requestState: UPSTREAM_STATES[0] });
    }
    if (name === 'both') {
      const declared = ((ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope?.['io.modelcontextprotocol/clientCapabilities'] ??
        {}) as Record<string, unknown>;
      const model = inputResponse(ctx.mcpReq.inputResponses, 'model');
      if (model.kind === 'sampling')
        return {
          content: [
            {
              type: 'text',
              text: `${label}: answered ${Object.keys(ctx.mcpReq.inputResponses ?? {})
                .sort()
                .join(' ')}`,
            },
          ],
        };
      const sampling = inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi?' } }], maxTokens: 5 });
      return inputRequired({ inputRequests: { model: sampling, ...('elicitation' in declared && { input: ASK_NAME }) } });
    }
    // Not listed unless a test adds them to `tools`: an error answer, and a result that is not text content alone.
    if (name === 'fail') throw new ProtocolError(-32602, `${label}: no such thing`);
    if (name === 'picture') return { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] };
    if (name === 'forever') return inputRequired({ inputRequests: { input: ASK_NAME }, requestState: 'again' });
    if (name === 'log') {
      await ctx.mcpReq.log('debug', `${label}: a debug line`);
      await ctx.mcpReq.log('warning', `${label}: a warning`);
      return { content: [{ type: 'text', text: `${label}: logged` }] };
    }
    const text =
      name === 'echo'
        ? `${label}: ${String(args?.text ?? '')}`
        : name === 'count' || name === 'note'
          ? `${label}: ${name === 'count' ? 'counted' : 'noted'}`
          : `${label}: the secret`;
    return { content: [{ type: 'text', text }] };
  });
  server.setRequestHandler('resources/list', async () => log('resources/list', { resources: RESOURCES }));
  server.setRequestHandler('resources/templates/list', async () => log('resources/templates/list', { resourceTemplates: TEMPLATES }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    log('resources/read', null);
    receive('resources/read', request.params._meta, ctx);
    const { uri } = request.params;
    if (uri === 'file:///notes/asked') {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'input');
      if (answer.kind !== 'elicit') return inputRequired({ inputRequests: { input: ASK_NAME }, requestState: 'read-state' });
      return { contents: [{ uri, mimeType: 'text/plain', text: `${label}: for ${JSON.stringify(answer.content ?? {})}` }] };
    }
    if (!uri.startsWith('file:///notes/')) throw new ProtocolError(-32602, `Resource ${uri} not found`);
    return { contents: [{ uri, mimeType: 'text/plain', text: `${label}: ${uri}` }] };
  });
  // A 2025 session's subscription: the `log` tool changes the resource (the update goes on the session's GET stream).
  server.setRequestHandler('resources/subscribe', async (request) => {
    subscribed.add(request.params.uri);
    return log('resources/subscribe', {});
  });
  server.setRequestHandler('prompts/list', async () => log('prompts/list', { prompts: PROMPTS }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    log('prompts/get', null);
    receive('prompts/get', request.params._meta, ctx);
    if (request.params.name === 'interview') {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'input');
      if (answer.kind !== 'elicit') return inputRequired({ inputRequests: { input: ASK_NAME }, requestState: 'prompt-state' });
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `${label} interviews ${JSON.stringify(answer.content ?? {})}` } }],
      };
    }
    return {
      messages: [{ role: 'user', content: { type: 'text', text: `${label} greets ${request.params.arguments?.who ?? 'nobody'}` } }],
    };
  });
  server.setRequestHandler('completion/complete', async (request) =>
    log('completion/complete', {
      completion: { values: ['world', 'wendy'].filter((v) => v.startsWith(request.params.argument.value)).map((v) => `${label}:${v}`) },
    }),
  );
  return server;
}

/** An SDK v2 (or, `legacy`, v1) MCP server on a loopback port whose texts name `label`. */
export async function startV2Upstream(mode: V2UpstreamMode, label: string = mode): Promise<V2Upstream> {
  const state: V2Upstream = {
    url: '',
    seen: [],
    discovers: 0,
    silent: false,
    clientCapabilities: [],
    received: [],
    tools: [...TOOLS],
    traceparents: [],
    requests: [],
    forget: () => undefined,
    stop: async () => undefined,
  };
  if (mode === 'legacy') {
    const v1 = await startUpstream(label);
    return Object.assign(state, { url: v1.url, stop: () => v1.stop() });
  }
  const handler = createMcpHandler((ctx) => serverFor(label, ctx.era, state.seen, state.clientCapabilities, state.received, state.tools), {
    legacy: 'reject',
  });
  state.notify = handler.notify;
  const modern = toNodeHandler(handler);
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  state.forget = () => sessions.clear();
  const httpServer = http.createServer(
    (req, res) =>
      void (async () => {
        let raw = '';
        for await (const chunk of req) raw += chunk;
        if (state.silent) return; // the socket stays open until keygate gives up
        state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw });
        state.traceparents.push(req.headers.traceparent as string | undefined);
        const body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
        if ((body as { method?: string } | undefined)?.method === 'server/discover') state.discovers += 1;
        const header = (name: string) => req.headers[name] as string | undefined;
        const route = classifyInboundRequest({
          httpMethod: req.method ?? 'GET',
          protocolVersionHeader: header('mcp-protocol-version'),
          mcpMethodHeader: header('mcp-method'),
          mcpNameHeader: header('mcp-name'),
          body,
        });
        if (mode === 'modern' || route.kind !== 'legacy') return void modern(req, res, body);
        const id = header('mcp-session-id');
        let transport = id === undefined ? undefined : sessions.get(id);
        if (transport === undefined) {
          if (route.reason !== 'initialize')
            return void res
              .writeHead(404, { 'Content-Type': 'application/json' })
              .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
          const opened = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: randomUUID,
            onsessioninitialized: (sid) => void sessions.set(sid, opened),
          });
          opened.onclose = () => void (opened.sessionId && sessions.delete(opened.sessionId));
          await serverFor(label, 'legacy', state.seen, [], state.received, state.tools).connect(opened);
          transport = opened;
        }
        await transport.handleRequest(req, res, body);
      })(),
  );
  const loopback = await listenLoopback(httpServer);
  state.url = `${loopback.url}/mcp`;
  state.stop = loopback.close;
  return state;
}
