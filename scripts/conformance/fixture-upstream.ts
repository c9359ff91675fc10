import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import express, { NextFunction, Request, Response } from 'express';
import { localhostHostValidation, NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { registerFixturePrompts, registerFixtureResources } from './fixture-content';
import { ListChanges, registerDiagnosticTools } from './fixture-diagnostics';
import { FixtureEventStore } from './fixture-event-store';
import { registerInputRequiredTools, requestStateCodec } from './fixture-input-required';
import { FixtureLog } from './fixture-log';
import { registerFixtureTools } from './fixture-tools';

/** Live sessions; the suite never ends its own (its clients just go away), so the oldest is closed past this. */
const MAX_SESSIONS = 64;
/** Milliseconds a client waits before resuming a stream the server closed (SSE `retry:`, SEP-1699). */
const RETRY_MS = 500;
/** The newest 2025 revision, which a session gets when it asks for one this SDK does not speak. */
const LATEST_2025 = '2025-11-25';

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  /** What initialize settled on; it, not each request's header, says what the client understands. */
  protocolVersion: string;
}

/**
 * The conformance suite's server-side fixture as a real upstream MCP server
 * that serves both revisions on one endpoint, built with the official SDK v2
 * the way its own conformance server (typescript-sdk
 * test/conformance/src/everythingServer.ts) is: each POST is classified
 * (`classifyInboundRequest`); a 2026-07-28 request goes to a stateless
 * `createMcpHandler`, everything else (initialize, a session's requests, GET
 * and DELETE) to a sessionful 2025 `NodeStreamableHTTPServerTransport` with a
 * resumable event store. Both eras build the same McpServer: everything the
 * suite's server scenarios call (tools, resources, prompts, logging,
 * completion, sampling, elicitation, the input-required tools and the
 * 2026 diagnostics), on loopback with a Host-header check against DNS rebinding.
 *
 * `npm run conformance:fixture` runs the suite against it directly;
 * `npm run conformance` registers it with keygate as an upstream. Run alone:
 * `node dist/scripts/conformance/fixture-upstream.js [port]`.
 */
export class FixtureUpstream {
  private constructor(
    private readonly server: http.Server,
    private readonly sessions: Map<string, Session>,
    private readonly modern: ReturnType<typeof createMcpHandler>,
    readonly url: string,
  ) {}

  static async start(port = 0): Promise<FixtureUpstream> {
    const sessions = new Map<string, Session>();
    const modern = createMcpHandler(() => fixtureServer('modern', modern.notify), {
      onerror: (error) => console.error('fixture-upstream (2026):', error),
    });
    const serveModern = toNodeHandler(modern);
    const app = express();
    const validHost = localhostHostValidation();
    app.use((req: Request, res: Response, next: NextFunction) => void (validHost(req, res) && next()));
    app.use(express.json({ limit: '4mb' }));
    app.all('/mcp', async (req, res) => {
      const header = (name: string) => req.header(name);
      const route = classifyInboundRequest({
        httpMethod: req.method,
        protocolVersionHeader: header('mcp-protocol-version'),
        mcpMethodHeader: header('mcp-method'),
        mcpNameHeader: header('mcp-name'),
        body: req.body,
      });
      if (route.kind !== 'legacy') return serveModern(req, res, req.body);
      return serveLegacy(sessions, req, res);
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    const address = server.address() as AddressInfo;
    return new FixtureUpstream(server, sessions, modern, `http://127.0.0.1:${address.port}/mcp`);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(({ transport }) => transport.close()));
    await this.modern.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One server instance: per 2025 session, or per 2026-07-28 request. */
function fixtureServer(era: 'legacy' | 'modern', modernChanges?: ListChanges): McpServer {
  const server = new McpServer(
    { name: 'keygate-conformance-fixture', version: '2.0.0' },
    {
      // `logging` is deprecated in 2026-07-28 but still what a 2025 session negotiates logging/setLevel with.
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      requestState: { verify: requestStateCodec.verify.bind(requestStateCodec) },
    },
  );
  const changes = modernChanges ?? {
    toolsChanged: () => server.sendToolListChanged(),
    promptsChanged: () => server.sendPromptListChanged(),
  };
  const log = new FixtureLog(server, era);
  registerFixtureTools(server, log);
  registerDiagnosticTools(server, log, changes);
  registerInputRequiredTools(server);
  registerFixtureResources(server, log);
  registerFixturePrompts(server);
  return server;
}

async function serveLegacy(sessions: Map<string, Session>, req: Request, res: Response): Promise<void> {
  const id = req.header('mcp-session-id');
  const session = id === undefined ? undefined : sessions.get(id);
  if (id !== undefined && !session) return void res.status(404).json(rpcError(-32001, 'Session not found'));
  try {
    let transport = session?.transport;
    if (session) useNegotiatedVersion(req, session.protocolVersion);
    else if (req.method === 'POST' && isInitializeRequest(req.body))
      transport = await openSession(sessions, negotiate(req.body.params.protocolVersion));
    if (!transport) return void res.status(400).json(rpcError(-32000, 'Bad Request: initialize first, then send its Mcp-Session-Id'));
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    console.error('fixture-upstream:', error);
    if (!res.headersSent) res.status(500).json(rpcError(-32603, 'Internal error'));
  }
}

async function openSession(sessions: Map<string, Session>, protocolVersion: string): Promise<NodeStreamableHTTPServerTransport> {
  const server = fixtureServer('legacy');
  const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: new FixtureEventStore(),
    retryInterval: RETRY_MS,
    onsessioninitialized: (id) => {
      sessions.set(id, { transport, protocolVersion });
      if (sessions.size > MAX_SESSIONS) void sessions.values().next().value?.transport.close();
    },
  });
  // Closed by DELETE, by eviction or by stop().
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  return transport;
}

/** The SDK server's own choice: the client's version when supported, else the latest 2025 one. */
function negotiate(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_2025;
}

/**
 * The SDK sends SEP-1699 priming events (and lets a tool close its stream)
 * only when the request's MCP-Protocol-Version header is 2025-11-25 or later.
 * The pinned suite's SSE probes send 2025-03-26 on sessions that negotiated
 * 2025-11-25 (fixed upstream: conformance PR #366), so within a session a
 * supported (or missing) header is read as the negotiated version. An
 * unsupported one is left for the SDK to refuse. The SDK's Node adapter reads
 * `rawHeaders`, so both lists change.
 */
function useNegotiatedVersion(req: Request, negotiated: string): void {
  const sent = req.header('mcp-protocol-version');
  if (sent === negotiated || (sent !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(sent))) return;
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== 'mcp-protocol-version') raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  req.rawHeaders = [...raw, 'mcp-protocol-version', negotiated];
  req.headers['mcp-protocol-version'] = negotiated;
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

if (require.main === module) {
  FixtureUpstream.start(Number(process.argv[2] ?? 0))
    .then((fixture) => {
      console.log(`fixture-upstream: ${fixture.url}`);
      const stop = () => void fixture.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error: unknown) => {
      // A fixture that cannot start exits failed, so the run that spawned it does not wait on it.
      console.error(`fixture-upstream: ${String(error)}`);
      process.exit(1);
    });
}
