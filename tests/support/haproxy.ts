import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './nginx';

/** Where Debian's haproxy package puts the binary; HAPROXY_BIN overrides. */
export const HAPROXY_CANDIDATES = [process.env.HAPROXY_BIN, '/usr/sbin/haproxy', '/usr/local/sbin/haproxy'];

export interface PostgresProxy {
  /** Where clients connect: the current primary, whichever server that is. */
  port: number;
  /**
   * Sends new connections to the server on `port` from now on and cuts every
   * connection still open to the others, as a managed service's read-write
   * endpoint does when it fails over.
   */
  pointAt(port: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * HAProxy in TCP mode in front of PostgreSQL servers, one of them enabled:
 * moved through its runtime API (the admin stats socket), no reload.
 */
export async function startPostgresProxy(binary: string, serverPorts: number[], enabledPort: number): Promise<PostgresProxy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-haproxy-'));
  const socket = path.join(dir, 'admin.sock');
  const port = await freePort();
  const name = (p: number) => `pg${p}`;
  writeFileSync(
    path.join(dir, 'haproxy.cfg'),
    `
global
  stats socket ${socket} mode 600 level admin
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
frontend postgres
  bind 127.0.0.1:${port}
  default_backend primary
backend primary
${serverPorts.map((p) => `  server ${name(p)} 127.0.0.1:${p}${p === enabledPort ? '' : ' disabled'}`).join('\n')}
`,
  );
  const child = spawn(binary, ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => void (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (output += c.toString()));
  await untilConnects(socket, child, () => output);
  return {
    port,
    async pointAt(target) {
      const commands = serverPorts.flatMap((p) =>
        p === target
          ? [`enable server primary/${name(p)}`]
          : [`disable server primary/${name(p)}`, `shutdown sessions server primary/${name(p)}`],
      );
      for (const command of commands) await admin(socket, command);
    },
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command on the runtime API; HAProxy answers and closes. */
function admin(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let answer = '';
    connection.on('data', (c) => (answer += c.toString()));
    connection.once('error', reject);
    connection.once('end', () => resolve(answer));
    connection.write(`${command}\n`);
  });
}

async function untilConnects(socket: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`haproxy exited at start-up:\n${output()}`);
    if (
      await admin(socket, 'show info').then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`haproxy did not start:\n${output()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
