/**
 * The Node flags the service runs with: `npm start`, the Dockerfile, the
 * benchmark and the end-to-end tests' service processes (a unit test keeps
 * them in step).
 *
 * Without a limit V8 lets the old generation grow to about four times what is
 * live before collecting it, which under sustained load took RSS to ~250 MB
 * for ~40 MB of live heap. 192 MB keeps RSS under 200 MB under the benchmark's
 * load and is still several times the live heap with full caches (10,000 keys
 * and MCP-server lists take a few MB). Raise it with a much larger
 * KEY_CACHE_MAX_ENTRIES.
 *
 * V8 sizes the young generation from the old one's limit, so 192 MB also left
 * small semi-spaces: under load the requests in flight and the audit events
 * waiting for their batch were copied by scavenge after scavenge and promoted.
 * 16 MB semi-spaces took the audited tools/call benchmark from 0.65-0.78 to
 * 0.79-0.82 of its ceiling in paired runs, with the same peak RSS (~150 MB);
 * 24 and 32 MB gained no more and cost 30-40 MB of RSS.
 *
 * Without allocation-site pretenuring: V8 allocates straight into the old
 * generation the objects of a site whose objects survived, and a per-call
 * object allocated there pins the young objects it points to until the next
 * full collection, which raises their sites' survival in turn. A 2025 session
 * call through /mcp/servers/<name> at 200 calls/s then promoted ~14 KB a call
 * (a site was traced being tenured at one object a call) instead of ~1.8 KB,
 * in most runs, and the major collections that growth set off were its tail latency.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--max-old-space-size=192',
  '--max-semi-space-size=16',
  '--no-allocation-site-pretenuring',
];
