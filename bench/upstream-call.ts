import { load } from './load';
import { alternate } from './rounds';
import { alternateFixedRate, FixedRateSpec, fixedRate } from './fixed-rate';
import { PhaseProbe } from './phase-reader';

/**
 * (j): tools/call of an upstream tool through /mcp/servers/<name> against
 * the same upstream called directly, by a client of one era:
 * - `2025`: a 2025-11-25 session (initialize once, then Mcp-Session-Id on
 *   every call, both media types accepted), what MCP clients mostly speak today;
 * - `2026`: stateless 2026-07-28 POSTs (`_meta` envelope, MCP-Protocol-Version,
 *   Mcp-Method and Mcp-Name on each).
 * First the added latency at a fixed rate (open loop), then the throughput of
 * each side saturated by autocannon, both in alternating rounds.
 */
export type ClientEra = '2025' | '2026';

export interface UpstreamCallSetup {
  era: ClientEra;
  /** The service's /mcp/servers/<name> URL, and the key it takes. */
  gatewayUrl: string;
  rawKey: string;
  /** The upstream's own MCP URL. */
  directUrl: string;
  /**
   * A third side in the same rounds: (j)'s floor in front of the same
   * upstream (bare-proxy.ts, no key), or with BENCH_AGAINST another build's
   * /mcp/servers/<name> (the key in `auth`).
   */
  alongside?: { url: string; auth: Record<string, string> };
  servicePid: number;
  upstreamPid: number;
  /** For the fixed-rate part. */
  rate: number;
  seconds: number;
  rounds: number;
  warmUpSeconds: number;
  /** autocannon's connections for the saturated part. */
  connections: number;
  /** With BENCH_PHASES=on: where the calls of the fixed-rate rounds spent their time in keygate and in the third side. */
  phases?: { keygate: PhaseProbe; alongside: PhaseProbe };
}

export const TOOL = 'echo';
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';
/** What every answered call must contain: the tool's result, not an error. */
const EXPECT = '"text":"bench"';

export async function measureUpstreamCall(setup: UpstreamCallSetup) {
  const gateway = await sideOf(setup.era, setup.gatewayUrl, { 'x-api-key': setup.rawKey });
  const direct = await sideOf(setup.era, setup.directUrl, {});
  const floor = setup.alongside && (await sideOf(setup.era, setup.alongside.url, setup.alongside.auth));
  const spec = (side: Side, seconds: number, warmUpSeconds = 0): FixedRateSpec => ({
    url: side.url,
    headers: side.headers,
    body: side.body,
    rate: setup.rate,
    seconds,
    warmUpSeconds,
    connections: 64,
    expect: EXPECT,
  });
  await fixedRate(spec(direct, setup.warmUpSeconds));
  await fixedRate(spec(gateway, setup.warmUpSeconds));
  if (floor) await fixedRate(spec(floor, setup.warmUpSeconds));
  await setup.phases?.keygate.mark();
  await setup.phases?.alongside.mark();
  const latency = await alternateFixedRate(
    (seconds) => fixedRate(spec(direct, seconds, setup.warmUpSeconds / 4)),
    (seconds) => fixedRate(spec(gateway, seconds, setup.warmUpSeconds / 4)),
    setup.seconds,
    setup.rounds,
    floor && ((seconds) => fixedRate(spec(floor, seconds, setup.warmUpSeconds / 4))),
  );
  const phases = setup.phases && { keygate: await setup.phases.keygate.mark(), alongside: await setup.phases.alongside.mark() };
  const saturated = (side: Side, seconds: number) =>
    load({ url: side.url, headers: side.headers, body: side.body, seconds, connections: setup.connections, idReplacement: true });
  const throughput = await alternate(
    { pid: setup.upstreamPid, run: (seconds) => saturated(direct, seconds) },
    { pid: setup.servicePid, run: (seconds) => saturated(gateway, seconds) },
    setup.seconds,
    setup.rounds,
  );
  return { era: setup.era, rate: setup.rate, latency, throughput, phases };
}

/** `calls` calls through keygate one after another, in one session of this era (for counting what each costs). */
export async function callsOneAtATime(setup: Pick<UpstreamCallSetup, 'era' | 'gatewayUrl' | 'rawKey'>, calls: number): Promise<void> {
  const side = await sideOf(setup.era, setup.gatewayUrl, { 'x-api-key': setup.rawKey });
  for (let id = 1; id <= calls; id++) {
    const res = await fetch(side.url, { method: 'POST', headers: side.headers, body: side.body.replace('[<id>]', `one-${id}`) });
    const text = await res.text();
    if (!text.includes(EXPECT)) throw new Error(`call ${id} answered ${res.status}: ${text.slice(0, 500)}`);
  }
}

interface Side {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The URL, headers and body a client of this era sends for each call; a 2025 side first opens its session. */
async function sideOf(era: ClientEra, url: string, auth: Record<string, string>): Promise<Side> {
  const params = { name: TOOL, arguments: { text: 'bench' } };
  const base = { 'content-type': 'application/json', accept: ACCEPT, ...auth };
  if (era === '2026') {
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };
    return {
      url,
      headers: { ...base, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': TOOL },
      body: JSON.stringify({ jsonrpc: '2.0', id: '[<id>]', method: 'tools/call', params: { ...params, _meta: meta } }),
    };
  }
  const sessionId = await openSession(url, base);
  return {
    url,
    headers: { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: '[<id>]', method: 'tools/call', params }),
  };
}

async function openSession(url: string, headers: Record<string, string>): Promise<string> {
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'keygate-bench', version: '1.0.0' } },
    }),
  });
  const sessionId = init.headers.get('mcp-session-id');
  const text = await init.text();
  if (init.status !== 200 || sessionId === null) throw new Error(`initialize at ${url} answered ${init.status}: ${text.slice(0, 500)}`);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (initialized.status !== 202)
    throw new Error(`notifications/initialized at ${url} answered ${initialized.status}: ${await initialized.text()}`);
  return sessionId;
}
