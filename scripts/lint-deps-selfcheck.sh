#!/usr/bin/env bash
# Proves `npm run lint:deps` can fail: plants one violation of each rule in
# .dependency-cruiser.js into a temporary copy of the project and expects the
# same npm script to report every one. A rule that matches nothing (a typo in a
# path, a resolver change) would otherwise pass in silence forever.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT

cp -r "$root"/{src,tests,scripts,bench,examples,web} "$root"/{ormconfig.ts,package.json,tsconfig.json,.dependency-cruiser.js} "$copy"
ln -s "$root/node_modules" "$copy/node_modules"
cd "$copy"

# The unchanged copy must pass, so that each failure below is the plant's doing.
if ! npm run -s lint:deps >"$copy/clean.log" 2>&1; then
  cat "$copy/clean.log"; echo "lint:deps self-check: the unchanged copy already fails"; exit 1
fi

plant() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1"; }
# rule|file that breaks it
expected=(
  "domain-imports-only-domain|src/domain/planted-built-in.ts"
  "domain-imports-only-domain|src/domain/planted-outward.ts"
  "application-imports-domain-and-application|src/application/planted-express.ts"
  "application-imports-domain-and-application|src/application/planted-adapter.ts"
  "adapters-not-to-infrastructure|src/adapters/planted-config.ts"
  "one-composition-root|src/infrastructure/server/planted-bindings.ts"
  "ports-not-to-use-cases|src/application/ports/planted-use-case.ts"
  "gateway-mcp-servers-not-to-tools|src/application/use-cases/gateway/mcp-servers/planted-tools.ts"
  "gateway-tool-pieces-below-use-cases|src/application/use-cases/gateway/external/planted-mcp-servers.ts"
  "mcp-edge-not-to-http|src/adapters/mcp/planted-http.ts"
  "http-edge-not-to-mcp|src/adapters/http/planted-mcp.ts"
  "shared-edge-below-http-and-mcp|src/adapters/edge/planted-mcp.ts"
  "no-circular|src/adapters/planted-cycle-a.ts"
  "src-not-to-tests-or-tools|src/adapters/planted-fake.ts"
  "src-not-to-dev-dependencies|src/adapters/planted-dev-dep.ts"
  "src-not-to-mcp-sdk-v1|src/adapters/planted-mcp-sdk-v1.ts"
  "opentelemetry-only-in-otel-tracing|src/adapters/observability/planted-otel.ts"
  "not-to-unresolvable|src/adapters/planted-typo.ts"
  "unit-tests-start-nothing|tests/unit/planted-database.spec.ts"
  "unit-tests-start-nothing|tests/unit/planted-pg.spec.ts"
)
plant src/domain/planted-built-in.ts "import { randomUUID } from 'node:crypto'; export const id = randomUUID();"
plant src/domain/planted-outward.ts "export type { Clock } from '../application/ports/clock.port';"
plant src/application/planted-express.ts "import type { Request } from 'express'; export type R = Request;"
plant src/application/planted-adapter.ts "export { SystemClock } from '../adapters/crypto/system-clock';"
plant src/adapters/planted-config.ts "export { loadConfig } from '../infrastructure/config/config';"
plant src/infrastructure/server/planted-bindings.ts "export { bindGateway } from '../di/gateway.module';"
plant src/application/ports/planted-use-case.ts "export type { ValidateKey } from '../use-cases/validate-key/validate-key.use-case';"
plant src/application/use-cases/gateway/mcp-servers/planted-tools.ts "export type { CallTool } from '../tools/call-tool.use-case';"
plant src/application/use-cases/gateway/external/planted-mcp-servers.ts "export type { McpServerView } from '../mcp-servers/mcp-server-record';"
plant src/adapters/mcp/planted-http.ts "export * from '../http/ndjson-stream';"
plant src/adapters/http/planted-mcp.ts "export * from '../mcp/rpc-error';"
plant src/adapters/edge/planted-mcp.ts "export * from '../mcp/rpc-error';"
plant src/adapters/planted-cycle-a.ts "import type { B } from './planted-cycle-b'; export type A = { b?: B };"
plant src/adapters/planted-cycle-b.ts "import type { A } from './planted-cycle-a'; export type B = { a?: A };"
plant src/adapters/planted-fake.ts "export { FixedClock } from '../../tests/fakes/fixed-clock';"
plant src/adapters/planted-dev-dep.ts "import fc from 'fast-check'; export const any = fc.anything;"
plant src/adapters/planted-mcp-sdk-v1.ts "import type { Client } from '@modelcontextprotocol/sdk/client/index.js'; export type C = Client;"
plant src/adapters/observability/planted-otel.ts "import { trace } from '@opentelemetry/api'; export const tracer = trace.getTracer('planted');"
plant src/adapters/planted-typo.ts "export * from './no-such-module';"
plant tests/unit/planted-database.spec.ts "import '../support/test-database';"
plant tests/unit/planted-pg.spec.ts "import { Client } from 'pg'; test('', () => expect(Client).toBeDefined());"

if npm run -s lint:deps >"$copy/planted.log" 2>&1; then
  cat "$copy/planted.log"; echo "lint:deps self-check: planted violations passed"; exit 1
fi
missed=0
for entry in "${expected[@]}"; do
  rule="${entry%%|*}"; file="${entry#*|}"
  if ! grep -q "error $rule: $file" "$copy/planted.log"; then
    echo "lint:deps self-check: $rule not reported for $file"; missed=1
  fi
done
if [ "$missed" -ne 0 ]; then cat "$copy/planted.log"; exit 1; fi
echo "lint:deps self-check: all ${#expected[@]} planted violations reported"
