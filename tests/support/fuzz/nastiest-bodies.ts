import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { arrayText, deepText, JsonText, text } from './json-text';
import { MCP_MAX_BODY_BYTES } from './mcp-messages';

/** Room for the envelope around a payload, so bodies end up just under the 1 MiB limit. */
const ROOM = MCP_MAX_BODY_BYTES - 512;
const call = (tool: string, data: JsonText, action = 'create') =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":{"action":"${action}","data":${data}}}}`;

export interface NastyBody {
  label: string;
  body: Buffer;
  headers?: Record<string, string>;
}

const plain = (label: string, value: JsonText): NastyBody => ({ label, body: Buffer.from(value) });

/**
 * The largest and deepest of what the generators make, near or over the
 * 1 MiB limit of /mcp: for a burst against the service process, where what
 * matters is whether it survives them together.
 */
export const nastiestMcpBody: fc.Arbitrary<NastyBody> = fc.oneof(
  fc.integer({ min: 50_000, max: Math.floor(ROOM / 2) }).map((n) => plain(`array nested ${n} deep`, deepText(n, 'array'))),
  fc.integer({ min: 20_000, max: Math.floor(ROOM / 16) }).map((n) => plain(`__proto__ nested ${n} deep`, deepText(n, 'proto'))),
  fc
    .integer({ min: 20_000, max: Math.floor(ROOM / 6) })
    .map((n) => plain(`tools/call data nested ${n} deep`, call('projects', `{"x":${deepText(n, 'object')}}`))),
  fc
    .integer({ min: 20_000, max: Math.floor(ROOM / 2) })
    .map((n) =>
      plain(
        `tools/list agent_scopes nested ${n} deep`,
        `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"agent_scopes":${deepText(n, 'array')}}}`,
      ),
    ),
  fc
    .integer({ min: 5_000, max: Math.floor(ROOM / 48) })
    .map((n) =>
      plain(`batch of ${n} pings`, arrayText(Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`))),
    ),
  // The SDK takes batches of up to 100 messages.
  fc
    .integer({ min: 90, max: 100 })
    .map((n) =>
      plain(
        `batch of ${n} tools/list`,
        arrayText(Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"tools/list"}`)),
      ),
    ),
  fc
    .integer({ min: 90, max: 100 })
    .map((n) => plain(`batch of ${n} tools/call create`, arrayText(Array.from({ length: n }, () => call('projects', '{"name":"burst"}'))))),
  fc
    .integer({ min: 90, max: 100 })
    .map((n) =>
      plain(
        `batch of ${n} tools/call create of 10 KB`,
        arrayText(Array.from({ length: n }, () => call('projects', text({ name: 'x'.repeat(10_000) })))),
      ),
    ),
  fc
    .integer({ min: 10_000, max: Math.floor(ROOM / 16) })
    .map((n) => plain(`data with ${n} keys`, call('agents', `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`))),
  fc
    .integer({ min: 50_000, max: Math.floor(ROOM / 3) })
    .map((n) => plain(`data with an array of ${n} items`, call('routines', `{"items":[${'1,'.repeat(n - 1)}1]}`))),
  fc
    .integer({ min: 20_000, max: Math.floor(ROOM / 6) })
    .map((n) => plain(`${n} NUL characters in data`, call('projects', `{"name":${text('\u0000'.repeat(n))}}`))),
  fc
    .integer({ min: 20_000, max: Math.floor(ROOM / 6) })
    .map((n) => plain(`${n} lone surrogates in data`, call('chat', `{"name":${text('\ud800'.repeat(n))}}`))),
  fc
    .integer({ min: 100_000, max: ROOM - 64 })
    .map((n) => plain(`string id of ${n} characters`, `{"jsonrpc":"2.0","id":"${'i'.repeat(n)}","method":"ping"}`)),
  fc
    .integer({ min: 1, max: 4096 })
    .map((n) => plain(`body ${n} bytes over 1 MiB`, `{"jsonrpc":"2.0","id":1,"method":"${'m'.repeat(MCP_MAX_BODY_BYTES + n - 36)}"}`)),
  fc.integer({ min: 100_000, max: ROOM - 64 }).map((n) => plain(`${n} unclosed brackets`, '['.repeat(n))),
  fc.integer({ min: 8, max: 32 }).map((mib) => ({
    label: `gzip bomb inflating to ${mib} MiB of [`,
    body: gzipSync(Buffer.alloc(mib * 1024 * 1024, '[')),
    headers: { 'Content-Encoding': 'gzip' },
  })),
);
