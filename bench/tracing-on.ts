import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Started, startListening } from './processes';
import { alternate, Side } from './rounds';

/** BENCH_TRACING=on: (b) and (e) again, on a second service exporting every span (always_on) to a receiver that discards them. */
export const TRACING_ON = process.env.BENCH_TRACING === 'on';

export interface TracingReceiver {
  url: string;
  /** OTLP export requests received, and their bytes: proof the spans left the service. */
  received(): { exports: number; bytes: number };
  stop(): Promise<void>;
}

/** An OTLP/HTTP endpoint in the bench process that answers every export 200 and keeps nothing but counts. */
export async function startDiscardingReceiver(): Promise<TracingReceiver> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      if (req.url === '/v1/traces') exports += 1;
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => ({ exports, bytes }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The service's environment with tracing on at full sampling, exporting to `receiver`. */
export function tracingEnv(env: NodeJS.ProcessEnv, receiver: TracingReceiver): NodeJS.ProcessEnv {
  return { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'keygate-bench' };
}

export interface TracingOnRuns {
  /** The ceilings (a) and (a′), as run.ts runs them. */
  bare: Side['run'];
  barePid: number;
  bareRow: Side['run'];
  /** (b) and (e) against a service at `baseUrl`. */
  toolsList(baseUrl: string): Side['run'];
  toolsCall(baseUrl: string): Side['run'];
  warmUp(baseUrl: string): Promise<void>;
}

/** Starts the traced service on the same database (the same key and record serve it), runs (a)/(b) and (a′)/(e) as run.ts does, stops it. */
export async function measureTracingOn(
  main: string,
  env: NodeJS.ProcessEnv,
  nodeFlags: readonly string[],
  runs: TracingOnRuns,
  seconds: number,
  rounds: number,
) {
  const receiver = await startDiscardingReceiver();
  let service: Started | undefined;
  try {
    service = await startListening(main, tracingEnv(env, receiver), nodeFlags);
    const pid = service.child.pid!;
    await runs.warmUp(service.baseUrl);
    const b = await alternate({ pid: runs.barePid, run: runs.bare }, { pid, run: runs.toolsList(service.baseUrl) }, seconds, rounds);
    const e = await alternate({ pid: runs.barePid, run: runs.bareRow }, { pid, run: runs.toolsCall(service.baseUrl) }, seconds, rounds);
    await service.stop(); // flushes what the batch processor still holds
    service = undefined;
    return { b, e, received: receiver.received() };
  } finally {
    await service?.stop();
    await receiver.stop();
  }
}
