/**
 * Service identifiers for everything that is not bound by its own class: ports,
 * settings and plain values. Use-cases, controllers and single-implementation
 * adapters are bound by their class.
 */
export const TOKENS = {
  Config: Symbol.for('keygate.Config'),
  Database: Symbol.for('keygate.Database'),
  DataSource: Symbol.for('keygate.DataSource'),
  Metrics: Symbol.for('keygate.Metrics'),
  Logger: Symbol.for('keygate.Logger'),
  /** Tracing: NO_TRACING unless the entry point started OpenTelemetry. */
  Tracing: Symbol.for('keygate.Tracing'),
  /** `() => Promise<void>` that fails while PostgreSQL cannot be reached (`/readyz`). */
  ReadinessCheck: Symbol.for('keygate.ReadinessCheck'),

  // Keys
  ApiKeyRepository: Symbol.for('keygate.ApiKeyRepository'),
  KeyCache: Symbol.for('keygate.KeyCache'),
  KeyHasher: Symbol.for('keygate.KeyHasher'),
  KeyGenerator: Symbol.for('keygate.KeyGenerator'),
  Clock: Symbol.for('keygate.Clock'),
  KeyPolicy: Symbol.for('keygate.KeyPolicy'),
  SecretBox: Symbol.for('keygate.SecretBox'),
  /** Transactions over the key repository and the audit log. */
  UnitOfWork: Symbol.for('keygate.UnitOfWork'),
  ToolCallApprovalStore: Symbol.for('keygate.ToolCallApprovalStore'),
  /** Audit events written in batches off the request path (tool calls). */
  AuditQueue: Symbol.for('keygate.AuditQueue'),
  /** Rate windows and quota leases of key budgets (the /mcp hot path). */
  UsageBudget: Symbol.for('keygate.UsageBudget'),
  /** Quota balances as the key API sets and lists them. */
  QuotaBalances: Symbol.for('keygate.QuotaBalances'),

  // Leak reports from a secret scanner
  ReportSignatureVerifier: Symbol.for('keygate.ReportSignatureVerifier'),
  /** The secret scanning router; empty when SECRET_SCANNING_KEYS_URL is unset. */
  SecretScanningRoutes: Symbol.for('keygate.SecretScanningRoutes'),

  // The audit trail
  AuditEventReader: Symbol.for('keygate.AuditEventReader'),
  /** `() => Promise<ChainVerdict>`: verifies the whole chain over one snapshot (npm run audit:verify). */
  VerifyAuditChain: Symbol.for('keygate.VerifyAuditChain'),

  // Users' access tokens
  AccessTokenVerifier: Symbol.for('keygate.AccessTokenVerifier'),
  /** The development issuer when JWT_JWKS_URI is unset, otherwise null. */
  DevTokenIssuer: Symbol.for('keygate.DevTokenIssuer'),

  /** The /mcp protected resource metadata route (RFC 9728); empty when MCP_RESOURCE_URL is unset. */
  ProtectedResourceRoutes: Symbol.for('keygate.ProtectedResourceRoutes'),

  // Scope contexts
  AgentRoleRepository: Symbol.for('keygate.AgentRoleRepository'),
  ModeToolConfigRepository: Symbol.for('keygate.ModeToolConfigRepository'),
  ModeSessionRepository: Symbol.for('keygate.ModeSessionRepository'),

  // The MCP gateway
  ResourceStore: Symbol.for('keygate.ResourceStore'),
  UpstreamMcp: Symbol.for('keygate.UpstreamMcp'),
  McpLog: Symbol.for('keygate.McpLog'),
  /** The upstreams' resources, prompts and completion use-cases, as McpServerFactory takes them (gateway.module.ts). */
  UpstreamContentUseCases: Symbol.for('keygate.UpstreamContentUseCases'),
  ToolListCache: Symbol.for('keygate.ToolListCache'),
  ExternalTools: Symbol.for('keygate.ExternalTools'),
  /** The tools' rule language (CEL), compiling each condition once. */
  RuleCompiler: Symbol.for('keygate.RuleCompiler'),
  /** The built-in tools' rules: the table, and the short-lived copy calls read. */
  ToolRuleStore: Symbol.for('keygate.ToolRuleStore'),
  BuiltInRuleReader: Symbol.for('keygate.BuiltInRuleReader'),
  /** `McpServerUseCases`: the rules of mcp_servers records, for the tool and the REST API (gateway.module.ts). */
  McpServerUseCases: Symbol.for('keygate.McpServerUseCases'),
  /** `McpConnectionStore`: users' connections to upstream MCP servers, read outside a unit of work (gateway.module.ts). */
  McpConnectionStore: Symbol.for('keygate.McpConnectionStore'),
  /** `UpstreamAuthorization`: keygate as an OAuth client of upstream authorization servers (upstream-authorization.module.ts). */
  UpstreamAuthorization: Symbol.for('keygate.UpstreamAuthorization'),
  /** `ConnectionAttemptStore`: OAuth authorizations waiting for their callback. */
  ConnectionAttemptStore: Symbol.for('keygate.ConnectionAttemptStore'),
  /** `ClientRegistrationStore`: keygate's dynamic registrations at upstream authorization servers. */
  ClientRegistrationStore: Symbol.for('keygate.ClientRegistrationStore'),
  /** The route serving keygate's OAuth Client ID Metadata Document (empty without an https PUBLIC_URL). */
  ClientMetadataRoutes: Symbol.for('keygate.ClientMetadataRoutes'),
  /** Whether a registered server's host may be contacted at all (MCP_UPSTREAM_ALLOWLIST), asked by the REST API. */
  UpstreamAddressCheck: Symbol.for('keygate.UpstreamAddressCheck'),

  // MCP sessions
  McpSessionRepository: Symbol.for('keygate.McpSessionRepository'),
  SessionBus: Symbol.for('keygate.SessionBus'),
  /** `UpstreamSessionStore`: keygate's sessions with upstreams, per client session. */
  UpstreamSessionStore: Symbol.for('keygate.UpstreamSessionStore'),
  /** `NotifiedCache[]`: the relay's channels (client sessions ending), heard through the one change listener. */
  RelayChannels: Symbol.for('keygate.RelayChannels'),
  /** `NotifiedCache[]`: the sessions' channels, heard through the one change listener. */
  SessionChannels: Symbol.for('keygate.SessionChannels'),
  SubscriptionChannels: Symbol.for('keygate.SubscriptionChannels'),
  /** The built-in tools' rules copy, told of changes by NOTIFY. */
  ToolRuleChannels: Symbol.for('keygate.ToolRuleChannels'),
  ResourceSubscriptionStore: Symbol.for('keygate.ResourceSubscriptionStore'),
} as const;
