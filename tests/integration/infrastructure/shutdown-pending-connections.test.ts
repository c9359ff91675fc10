import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { onShutdown } from '../../../src/infrastructure/server/graceful-shutdown';

/** A client in a process of its own: it connects, sends a POST, marks the file, then prints the answer's status and Connection. */
const CLIENT = `
const net = require('node:net'); const fs = require('node:fs');
const [port, mark] = process.argv.slice(1);
const socket = net.connect(Number(port), '127.0.0.1', () => {
  socket.write('POST /mcp HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 2\\r\\nConnection: keep-alive\\r\\n\\r\\n{}', () => fs.writeFileSync(mark, ''));
});
let answer = '';
socket.on('data', (chunk) => (answer += chunk));
socket.on('error', (error) => { process.stdout.write('error ' + error.code); process.exit(0); });
socket.on('end', () => {
  const status = answer.split(' ')[1];
  const connection = /\\r\\nConnection: (\\S+)/i.exec(answer)?.[1];
  process.stdout.write(status + ' ' + connection);
  process.exit(0);
});
`;

/** Blocks the event loop until `file` exists (or `ms` pass): nothing is accepted or read meanwhile. */
function busyUntil(file: string, ms: number): void {
  const end = Date.now() + ms;
  while (!existsSync(file) && Date.now() < end);
}

describe('graceful shutdown', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-shutdown-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves a connection the kernel completed before SIGTERM but the loop had not accepted yet, instead of resetting it', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const exited = new Promise<number | undefined>((resolve) => {
      jest.spyOn(process, 'exit').mockImplementation(((code?: number) => resolve(code)) as never);
    });
    const mark = path.join(dir, 'sent');
    const client = spawn(process.execPath, ['-e', CLIENT, String(port), mark], { stdio: ['ignore', 'pipe', 'inherit'] });
    let printed = '';
    client.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const clientExited = new Promise((resolve) => client.on('exit', resolve));
    try {
      // The child connects and sends while this loop is blocked: its connection waits in the listener's queue.
      busyUntil(mark, 10_000);
      expect(existsSync(mark)).toBe(true);
      void onShutdown(server, [], () => undefined, 5_000)('SIGTERM');
      await clientExited;
      expect(printed).toBe('200 close');
      expect(await exited).toBe(0);
    } finally {
      jest.restoreAllMocks();
      server.closeAllConnections();
      server.close();
    }
  });
});
