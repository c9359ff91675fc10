import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { DevTokenIssuer } from '../../src/adapters/auth/dev-token-issuer';
import { LocalPostgres } from '../../src/infrastructure/database/local-postgres';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js');
// Whatever the caller's shell points the service at is not what this run tests.
const INHERITED =
  /^(DATABASE_URL|TEST_DATABASE_URL|JWT_|PORT$|HOST$|DATA_DIR$|NODE_ENV$|MAX_KEYS|MCP_|LOG_LEVEL$|AUTH_FAILURE|TRUST_PROXY$|MAX_HEADER)/;

/**
 * The compiled service (`npm run build` first) on a throwaway PostgreSQL in
 * `dir`, bound to loopback and answering only loopback Host headers, with one
 * full-access API key created over REST as a development user would. Its
 * stdout and stderr go to `<dir>/service.log`; `env` adds settings (such as
 * `MCP_UPSTREAM_ALLOWLIST` for a loopback upstream).
 */
export class KeygateUnderTest {
  private constructor(
    private readonly postgres: LocalPostgres,
    private readonly child: ChildProcess,
    readonly baseUrl: URL,
    readonly fullAccessKey: string,
  ) {}

  static async start(dir: string, env: Record<string, string> = {}): Promise<KeygateUnderTest> {
    const postgres = await LocalPostgres.start({ dir: path.join(dir, 'db'), throwaway: true });
    const dataDir = path.join(dir, 'data');
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !INHERITED.test(name)));
    const child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: {
        ...inherited,
        ...env,
        DATABASE_URL: postgres.url,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        MCP_ALLOWED_HOSTS: 'localhost,127.0.0.1,[::1]',
        LOG_LEVEL: 'info', // the start-up line is an info line
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logFile = createWriteStream(path.join(dir, 'service.log'));
    let output = '';
    const keep = (chunk: Buffer) => {
      logFile.write(chunk);
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('close', () => logFile.end());
    try {
      const port = await listeningPort(child, () => output);
      const baseUrl = new URL(`http://127.0.0.1:${port}`);
      const key = await createFullAccessKey(baseUrl, DevTokenIssuer.loadOrCreate(dataDir));
      return new KeygateUnderTest(postgres, child, baseUrl, key);
    } catch (error) {
      child.kill('SIGKILL');
      await postgres.stop();
      throw error;
    }
  }

  /**
   * Registers an upstream MCP server for the key's user as a client would:
   * a `tools/call` of the built-in `mcp_servers` tool on /mcp. Resolves once
   * /mcp lists `<name>__<probeTool>`, so that a registration that silently
   * lost its tools fails here rather than hiding behind expected failures.
   */
  async registerUpstream(name: string, url: string, probeTool: string): Promise<void> {
    const created = await this.mcp('tools/call', { name: 'mcp_servers', arguments: { action: 'create', data: { name, url } } });
    if (created.isError) throw new Error(`registering upstream ${name} failed: ${JSON.stringify(created)}`);
    const listed = await this.mcp('tools/list', {});
    const names = (listed.tools as { name: string }[]).map((tool) => tool.name);
    if (!names.includes(`${name}__${probeTool}`))
      throw new Error(`/mcp does not list ${name}__${probeTool} after registering ${url}; it lists ${names.join(', ')}`);
  }

  /** One stateless JSON-RPC request to /mcp with the full-access key; its result, or throws with its error. */
  private async mcp(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await fetch(new URL('/mcp', this.baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.fullAccessKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await response.text();
    // An SSE answer carries the response as the data of its last event.
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .match(/^data: (.+)$/gm)
          ?.pop()
          ?.slice(6)
      : text;
    const message = JSON.parse(json ?? 'null') as { result?: Record<string, unknown>; error?: unknown } | null;
    if (!message?.result) throw new Error(`/mcp ${method} answered ${response.status}: ${text.slice(0, 500)}`);
    return message.result;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await this.postgres.stop();
  }
}

/** The start-up line carries the URL, whether it is printed as plain text or inside a JSON log line. */
async function listeningPort(child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /listening on http:\/\/localhost:(\d+)/.exec(output());
    if (match) return Number(match[1]);
    if (child.exitCode !== null) throw new Error(`the service exited during start-up:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`the service did not report listening within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A key with no scopes is a full-access key (spec 4.5). */
async function createFullAccessKey(baseUrl: URL, issuer: DevTokenIssuer): Promise<string> {
  const token = issuer.mint({ sub: randomUUID(), ttlSeconds: 3600 });
  const response = await fetch(new URL('/api/v1/api-keys', baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'conformance suite', scopes: [] }),
  });
  const body = (await response.json()) as { raw_key?: string };
  if (response.status !== 201 || typeof body.raw_key !== 'string') {
    throw new Error(`creating the full-access key answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.raw_key;
}
