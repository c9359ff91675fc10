import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from '../src/infrastructure/server/node-flags';

/**
 * Start-up smoke test on the Node that runs this script (.ci/run runs it on
 * Node 24 through npx): the built service as `npm start` runs it, on a fresh
 * DATA_DIR with its embedded PostgreSQL; the banner's token creates a key over
 * REST, the key lists its tools on /mcp, SIGTERM must end it with exit 0.
 * Needs `npm run build` first. Exit 0 when all of that holds.
 */
const MAIN = path.resolve(__dirname, '..', 'src', 'infrastructure', 'server', 'main.js');
const SCOPES = ['projects:read', 'chat:read'];
const EXPECTED_TOOLS = ['chat', 'projects'];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-smoke-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its directory
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|TEST_DATABASE_URL|JWT_|PORT$|DATA_DIR$)/.test(name)),
  );
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, MAIN], {
    env: { ...env, PORT: '0', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const fail = (message: string): never => {
    throw new Error(`${message}\n--- service output ---\n${output}`);
  };
  try {
    const started = Date.now();
    let url: string | undefined;
    while (!(url = /listening on (http:\/\/localhost:\d+)/.exec(output)?.[1])) {
      if (child.exitCode !== null) fail(`service exited early (${child.exitCode})`);
      if (Date.now() - started > 120_000) fail('service did not start within 120 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const startSeconds = ((Date.now() - started) / 1000).toFixed(1);
    const token = /^export TOKEN=(\S+)$/m.exec(output)?.[1] ?? fail('no `export TOKEN=` line in the banner');

    const created = await fetch(`${url}/api/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'smoke', scopes: SCOPES }),
    });
    if (created.status !== 201) fail(`POST /api/v1/api-keys: ${created.status} ${await created.text()}`);
    const { raw_key: key } = (await created.json()) as { raw_key: string };

    const listed = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const body = await listed.text();
    if (listed.status !== 200) fail(`tools/list: ${listed.status} ${body}`);
    // A JSON answer, or the one message of an SSE answer.
    const json = body.trimStart().startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? fail(`tools/list: no message in ${body}`));
    const tools = ((JSON.parse(json) as { result?: { tools?: { name: string }[] } }).result?.tools ?? []).map((t) => t.name).sort();
    if (tools.join() !== EXPECTED_TOOLS.join())
      fail(`tools/list for ${SCOPES.join(' ')}: expected ${EXPECTED_TOOLS.join(', ')}, got ${tools.join(', ') || 'none'}`);

    const stopping = Date.now();
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000).unref())]);
    if (code !== 0) fail(`after SIGTERM: ${code === 'timeout' ? 'still running after 30 s' : `exit ${code}`}`);
    process.stdout.write(
      `smoke test passed on Node ${process.version}: started in ${startSeconds} s, created a key, tools/list gave ${tools.join(', ')}, stopped with exit 0 in ${((Date.now() - stopping) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    if (child.exitCode === null) {
      // SIGTERM first, so that the service stops its PostgreSQL too.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  process.stderr.write(`smoke test failed on Node ${process.version}: ${error.message}\n`);
  process.exit(1);
});
