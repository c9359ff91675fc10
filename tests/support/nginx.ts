import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net, { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Where Debian's nginx package puts the binary; NGINX_BIN overrides. */
export const NGINX_CANDIDATES = [process.env.NGINX_BIN, '/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

export interface RunningNginx {
  url: string;
  /** What nginx wrote to its error log so far, for a failing test's message. */
  errorLog(): string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function nginxBinary(): string {
  const found = NGINX_CANDIDATES.find((candidate) => candidate && existsSync(candidate));
  if (!found) {
    throw new Error(
      'nginx is not installed: this test runs a real NGINX. Install it (apt-get install -y nginx; .ci/run does) or set NGINX_BIN',
    );
  }
  return found;
}

/**
 * Runs nginx as this process's child: its own prefix and configuration in a
 * temporary directory, in the foreground, one process (no master, no
 * workers changing user), nothing written outside that directory. `servers`
 * is the inside of the `http` block; it must listen on `port`.
 */
export async function startNginx(servers: (port: number) => string): Promise<RunningNginx> {
  const binary = nginxBinary();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-nginx-'));
  const port = await freePort();
  const errorLog = path.join(dir, 'error.log');
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${errorLog} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${servers(port)}
}
`,
  );
  const child = spawn(binary, ['-p', `${dir}/`, '-c', `${dir}/nginx.conf`, '-e', errorLog], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const readLog = () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '') + stderr;
  const running: RunningNginx = {
    url: `http://127.0.0.1:${port}`,
    errorLog: readLog,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await untilListening(port, child);
  } catch (error) {
    const log = readLog();
    await running.stop();
    throw new Error(`${(error as Error).message}\n${log}`, { cause: error });
  }
  return running;
}

async function untilListening(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode} at start-up`);
    if (await connects(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not listen on ${port} within ${timeoutMs} ms`);
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** SIGQUIT is nginx's graceful stop; SIGKILL if it is still there after 5 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGQUIT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
