import http from 'node:http';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * SIGTERM: stop accepting connections, let in-flight requests finish (up to
 * `graceMs`), then run the steps in order (flush last_used_at, close the pool)
 * and exit 0, or 1 if a step failed.
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

async function drain(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections that finish their request become idle; close them as they do.
  const sweeper = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
  server.closeIdleConnections();
  await Promise.race([closed, deadline]);
  clearInterval(sweeper);
  server.closeAllConnections();
}
