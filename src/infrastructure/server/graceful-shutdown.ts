import http from 'node:http';
import net from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * SIGTERM: stop accepting connections, let in-flight requests finish (up to
 * `graceMs`), then run the steps in order (flush last_used_at, close the pool)
 * and exit 0, or 1 if a step failed.
 *
 * Idle keep-alive connections are not closed by this side: a proxy (NGINX's
 * upstream keepalive) may be sending a request on one at that very moment,
 * and would then get a closed connection for a request it may not resend (a
 * POST), so a 502. Every answer from now on says `Connection: close` instead,
 * and an idle connection ends when its client closes it (a proxy's idle
 * timeout is below the server's keep-alive timeout), or after that timeout.
 */
export function onShutdown(
  server: http.Server,
  steps: ShutdownStep[],
  log: (message: string, error?: unknown) => void,
  graceMs = 10_000,
  /** Ends what never finishes by itself (MCP session streams, whose clients reconnect elsewhere with Last-Event-ID). */
  beforeDrain: () => void = () => undefined,
): (signal: string) => Promise<void> {
  let started = false;
  return async (signal) => {
    if (started) return;
    started = true;
    log(`${signal} received: finishing in-flight requests`);
    server.prependListener('request', closeAfterAnswer);
    beforeDrain();
    await drain(server, graceMs);
    let failed = false;
    for (const step of steps) {
      try {
        await step.run();
      } catch (error) {
        failed = true;
        log(`shutdown step "${step.name}" failed`, error);
      }
    }
    process.exit(failed ? 1 : 0);
  };
}

function closeAfterAnswer(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.shouldKeepAlive = false;
}

async function drain(server: http.Server, graceMs: number): Promise<void> {
  // Connections the kernel completed while this process was busy (handling the signal included) are accepted
  // on the event loop's next poll; closing the listener first would reset them, and a proxy answers 502 to a
  // POST it sent on one. They are served (with Connection: close) like any request in flight.
  // One check phase for the immediates queued now, then one poll, then the next check phase.
  await nextTurn();
  await nextTurn();
  // net's close, not http's: http.Server#close also closes the idle keep-alive connections at once.
  const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
  await Promise.race([closed, deadline]);
  server.closeAllConnections();
}
