import path from 'node:path';
import { LOG_LEVELS, LogLevel } from '../logging/logger';

export interface Config {
  env: string;
  port: number;
  host: string;
  /**
   * keygate's public origin as browsers reach it (PUBLIC_URL, else MCP_RESOURCE_URL without /mcp); null when
   * neither is set. Links keygate hands out (redirect URIs, connect pages) are built on it, never on a request's Host.
   */
  publicUrl: string | null;
  /** Unset: the embedded database under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  ops: OperationsConfig;
  jwt: {
    /** Unset outside production: the built-in development issuer. */
    jwksUri: string | null;
    issuer: string | null;
    audience: string | null;
    adminRole: string;
    /** JWT_MAX_LIFETIME_SECONDS: a token valid for longer (exp minus iat, or minus now without iat) is refused. */
    maxLifetimeSeconds: number;
  };
  maxKeysPerUser: number;
  hotPath: {
    /** Validated keys kept in memory per replica. */
    keyCacheEntries: number;
    /** Users whose MCP-server lists (read by every tools/list) are kept in memory; by default as many as keys. */
    serverListCacheEntries: number;
    /** How often coalesced last_used_at values are written. */
    lastUsedFlushMs: number;
    /** KEY_CACHE_STALE_AFTER_MS: how long the key and server-list caches serve what they held when the change listener dropped. */
    staleAfterMs: number;
  };
  mcp: McpConfig;
  /** Encryption of stored secrets (upstream header values). */
  secrets: SecretsConfig;
  audit: {
    /** AUDIT_RETENTION_DAYS: events older than this are pruned (the chain's anchor moves past them). */
    retentionDays: number;
    /** Tool-call events kept through a failed write are tried again after this (AUDIT_FLUSH_MS) when no new call brings it sooner. */
    flushMs: number;
    /** Events per transaction at most (AUDIT_BATCH_SIZE). */
    batchSize: number;
    /** Events kept while PostgreSQL is away (AUDIT_QUEUE_MAX); past it the oldest are dropped. */
    maxPending: number;
  };
  usage: {
    /** USAGE_FLUSH_INTERVAL_MS: how often each replica writes the usage counts it gathered. */
    flushIntervalMs: number;
    /** USAGE_RETENTION_DAYS: minute buckets older than this are removed (hour and day buckets are kept 400 days). */
    retentionDays: number;
  };
  secretScanning: SecretScanningConfig;
}

/** Leak reports from a secret scanner (POST /api/v1/secret-scanning/reports). */
export interface SecretScanningConfig {
  /** SECRET_SCANNING_KEYS_URL: where the scanner publishes its public keys; unset: the endpoint does not exist. */
  keysUrl: string | null;
}

export interface SecretsConfig {
  /** SECRETS_KEY: 32 bytes. Null outside production: a development key is kept under dataDir. */
  key: Buffer | null;
  /** SECRETS_KEY_PREVIOUS: keys values may still be encrypted under (comma-separated), read-only. */
  previous: Buffer[];
}

/** The /mcp endpoint: who may call it from a browser, and where external tools may live. */
export interface McpConfig {
  /** Origins accepted besides http(s)://localhost, 127.0.0.1 and [::1] on any port. */
  allowedOrigins: string[];
  /** Host header values accepted; empty: any host (set it when the service is reachable by name). */
  allowedHosts: string[];
  /** Hosts or CIDRs of upstream MCP servers admitted although loopback, private or link-local. */
  upstreamAllowlist: string[];
  upstreamTimeoutMs: number;
  /** Largest upstream reply read, in bytes (MCP_UPSTREAM_MAX_BYTES). */
  upstreamMaxBytes: number;
  /** tools/list pages read from one upstream (MCP_UPSTREAM_MAX_PAGES). */
  upstreamMaxPages: number;
  /** Tools taken from one upstream; past it, that upstream's tools are dropped. */
  upstreamMaxTools: number;
  /** How long an upstream's tool list is reused (MCP_UPSTREAM_LIST_TTL_SECONDS). */
  upstreamListTtlSeconds: number;
  /** mcp_servers records one user may hold (MAX_MCP_SERVERS_PER_USER). */
  maxServersPerUser: number;
  /** APPROVAL_TTL_SECONDS: how long a tool call's approval may wait for its answer, then for its call. */
  approvalTtlSeconds: number;
  /** MCP_SESSION_IDLE_SECONDS: a session without requests (or an open stream) for this long ends. */
  sessionIdleSeconds: number;
  /** MCP_MAX_SESSIONS_PER_KEY: live sessions per key; initialize past it ends the key's least recently seen one. */
  maxSessionsPerKey: number;
  /** MCP_MAX_STREAMS_PER_REPLICA: open GET streams one replica holds; past it a GET gets 503. */
  maxStreamsPerReplica: number;
  /** MCP_MAX_STREAMS_PER_KEY: open GET streams (standalone and resumed POST answers) of one key on one replica; past it 429. Below maxStreamsPerReplica. */
  maxStreamsPerKey: number;
  /** MCP_RELAY_CALL_TIMEOUT_MS: an upstream tools/call relayed on a session's SSE answer may last this long (instead of MCP_UPSTREAM_TIMEOUT_MS). */
  relayCallTimeoutMs: number;
  /** MCP_RELAY_ANSWER_TIMEOUT_MS: longest wait for the client's answer to a relayed request (never past the call's end). */
  relayAnswerTimeoutMs: number;
  /** MCP_MAX_SUBSCRIPTIONS_PER_SESSION: resources/subscribe one session may hold. */
  maxSubscriptionsPerSession: number;
  /** MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA: upstream GET streams one replica holds for its sessions' streams. */
  maxUpstreamStreamsPerReplica: number;
  /** MCP_MAX_PARKED_CALLS_PER_REPLICA: 2026 calls of 2025 upstreams one replica holds open while their clients answer input requests. */
  maxParkedCallsPerReplica: number;
  /** MCP_MAX_PARKED_CALLS_PER_KEY: of those, held for one key on one replica. */
  maxParkedCallsPerKey: number;
  /** OAuth access tokens on /mcp (MCP_RESOURCE_URL and MCP_AUTHORIZATION_SERVERS); null: keys only. */
  oauth: McpOAuthConfig | null;
}

/** /mcp as an OAuth protected resource (RFC 9728, RFC 8707). */
export interface McpOAuthConfig {
  /** MCP_RESOURCE_URL: the canonical URL of /mcp, the audience a token must name. */
  resourceUrl: string;
  /** MCP_AUTHORIZATION_SERVERS: issuers whose tokens /mcp accepts. */
  authorizationServers: string[];
}

/** Logging and abuse limits. */
export interface OperationsConfig {
  logLevel: LogLevel;
  /** Express 'trust proxy': false, true, a hop count, or addresses/subnets of the proxies. */
  trustProxy: boolean | number | string;
  /** Largest request line plus headers accepted (431 beyond). */
  maxHeaderBytes: number;
  /** Failed key validations per client address per window on /mcp before 429. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
}

export class ConfigError extends Error {}

/** The one rule for a URL keygate calls or sends people to: https, or http outside production. */
export function webProtocolAllowed(url: URL, production: boolean): boolean {
  return url.protocol === 'https:' || (!production && url.protocol === 'http:');
}

/** Reads the environment once; every other module receives the parsed result. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const jwksUri = jwksUriOf(env.JWT_JWKS_URI, nodeEnv === 'production');
  if (nodeEnv === 'production' && !jwksUri) {
    throw new ConfigError('JWT_JWKS_URI is required when NODE_ENV=production: the development token issuer is never used in production');
  }
  if (nodeEnv === 'production') {
    // Without them a token minted for any other service of the same identity provider would be accepted.
    for (const name of ['JWT_ISSUER', 'JWT_AUDIENCE', 'SECRETS_KEY']) {
      if (!nonEmpty(env[name])) throw new ConfigError(`${name} is required when NODE_ENV=production`);
    }
  }
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const keyCacheEntries = integer(env, 'KEY_CACHE_MAX_ENTRIES', 10_000, 0, 10_000_000);
  const streamsPerReplica = integer(env, 'MCP_MAX_STREAMS_PER_REPLICA', 1000, 1, 100_000);
  return {
    env: nodeEnv,
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    publicUrl: publicUrl(env, nodeEnv === 'production'),
    databaseUrl,
    dataDir: path.resolve(nonEmpty(env.DATA_DIR) ?? '.data'),
    ops: {
      logLevel: logLevel(env.LOG_LEVEL),
      trustProxy: trustProxy(env.TRUST_PROXY),
      maxHeaderBytes: integer(env, 'MAX_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024),
      authFailureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
      authFailureWindowSeconds: integer(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    },
    jwt: {
      jwksUri,
      issuer: nonEmpty(env.JWT_ISSUER),
      audience: nonEmpty(env.JWT_AUDIENCE),
      adminRole: nonEmpty(env.JWT_ADMIN_ROLE) ?? 'admin',
      maxLifetimeSeconds: integer(env, 'JWT_MAX_LIFETIME_SECONDS', 86_400, 60, 31_622_400),
    },
    maxKeysPerUser: integer(env, 'MAX_KEYS_PER_USER', 100, 1, 1_000_000),
    hotPath: {
      keyCacheEntries,
      serverListCacheEntries: integer(env, 'SERVER_LIST_CACHE_MAX_ENTRIES', keyCacheEntries, 0, 10_000_000),
      lastUsedFlushMs: integer(env, 'LAST_USED_FLUSH_MS', 1000, 10, 60_000),
      staleAfterMs: integer(env, 'KEY_CACHE_STALE_AFTER_MS', 5000, 0, 600_000),
    },
    mcp: {
      allowedOrigins: list(env.MCP_ALLOWED_ORIGINS),
      allowedHosts: list(env.MCP_ALLOWED_HOSTS),
      upstreamAllowlist: list(env.MCP_UPSTREAM_ALLOWLIST),
      upstreamTimeoutMs: integer(env, 'MCP_UPSTREAM_TIMEOUT_MS', 5000, 100, 120_000),
      upstreamMaxBytes: integer(env, 'MCP_UPSTREAM_MAX_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      upstreamMaxPages: integer(env, 'MCP_UPSTREAM_MAX_PAGES', 10, 1, 1000),
      upstreamMaxTools: 500,
      upstreamListTtlSeconds: integer(env, 'MCP_UPSTREAM_LIST_TTL_SECONDS', 60, 1, 86_400),
      maxServersPerUser: integer(env, 'MAX_MCP_SERVERS_PER_USER', 20, 1, 10_000),
      approvalTtlSeconds: integer(env, 'APPROVAL_TTL_SECONDS', 900, 1, 604_800),
      sessionIdleSeconds: integer(env, 'MCP_SESSION_IDLE_SECONDS', 1800, 1, 604_800),
      maxSessionsPerKey: integer(env, 'MCP_MAX_SESSIONS_PER_KEY', 100, 1, 10_000),
      maxStreamsPerReplica: streamsPerReplica,
      maxStreamsPerKey: streamsPerKey(env, streamsPerReplica),
      relayCallTimeoutMs: integer(env, 'MCP_RELAY_CALL_TIMEOUT_MS', 300_000, 100, 1_800_000),
      relayAnswerTimeoutMs: integer(env, 'MCP_RELAY_ANSWER_TIMEOUT_MS', 60_000, 100, 600_000),
      maxSubscriptionsPerSession: integer(env, 'MCP_MAX_SUBSCRIPTIONS_PER_SESSION', 100, 1, 10_000),
      maxUpstreamStreamsPerReplica: integer(env, 'MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA', 1000, 1, 100_000),
      maxParkedCallsPerReplica: integer(env, 'MCP_MAX_PARKED_CALLS_PER_REPLICA', 1000, 1, 100_000),
      maxParkedCallsPerKey: integer(env, 'MCP_MAX_PARKED_CALLS_PER_KEY', 16, 1, 10_000),
      oauth: mcpOAuth(env, nodeEnv === 'production'),
    },
    secrets: {
      key: secretKey(env.SECRETS_KEY, 'SECRETS_KEY'),
      previous: (nonEmpty(env.SECRETS_KEY_PREVIOUS) ?? '')
        .split(',')
        .filter((v) => v.trim() !== '')
        .map((v) => secretKey(v, 'SECRETS_KEY_PREVIOUS')!),
    },
    audit: {
      retentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 400, 1, 36_500),
      flushMs: integer(env, 'AUDIT_FLUSH_MS', 250, 10, 60_000),
      batchSize: integer(env, 'AUDIT_BATCH_SIZE', 500, 1, 10_000),
      maxPending: integer(env, 'AUDIT_QUEUE_MAX', 100_000, 1, 10_000_000),
    },
    usage: {
      flushIntervalMs: integer(env, 'USAGE_FLUSH_INTERVAL_MS', 5000, 100, 60_000),
      retentionDays: integer(env, 'USAGE_RETENTION_DAYS', 30, 1, 400),
    },
    secretScanning: {
      keysUrl: keysUrl(env.SECRET_SCANNING_KEYS_URL, nodeEnv === 'production'),
    },
  };
}

/** An http(s) URL; https in production, since whoever can alter the key list in transit can sign reports. */
function keysUrl(value: string | undefined, production: boolean): string | null {
  const raw = nonEmpty(value);
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SECRET_SCANNING_KEYS_URL must be an http(s) URL');
  }
  if (!webProtocolAllowed(url, production)) {
    throw new ConfigError(
      `SECRET_SCANNING_KEYS_URL must be an ${production ? 'https' : 'http(s)'} URL${production ? ' when NODE_ENV=production' : ''}`,
    );
  }
  return raw;
}

/** One key's share of a replica's streams: below the whole, so that another key still gets a stream when one key holds its share. */
function streamsPerKey(env: NodeJS.ProcessEnv, perReplica: number): number {
  const perKey = integer(env, 'MCP_MAX_STREAMS_PER_KEY', 8, 1, 100_000);
  if (perKey >= perReplica) {
    throw new ConfigError(
      `MCP_MAX_STREAMS_PER_KEY (${perKey}) must be below MCP_MAX_STREAMS_PER_REPLICA (${perReplica}): one key must not be able to hold every stream of a replica`,
    );
  }
  return perKey;
}

/** An http(s) URL; https in production, since whoever can alter the JWKS in transit can mint admin tokens. */
function jwksUriOf(value: string | undefined, production: boolean): string | null {
  const raw = nonEmpty(value);
  if (raw === null) return null;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (url === null || !webProtocolAllowed(url, production)) {
    throw new ConfigError(
      `JWT_JWKS_URI must be an ${production ? 'https' : 'http(s)'} URL${production ? ' when NODE_ENV=production' : ''}`,
    );
  }
  return raw;
}

/** Issuers one resource trusts: a handful in practice; the metadata document lists them all. */
const MAX_AUTHORIZATION_SERVERS = 10;

/** Both variables or neither: half a configuration would announce a resource no token can reach, or trust issuers for no audience. */
function mcpOAuth(env: NodeJS.ProcessEnv, production: boolean): McpOAuthConfig | null {
  const resource = nonEmpty(env.MCP_RESOURCE_URL);
  const servers = list(env.MCP_AUTHORIZATION_SERVERS);
  if (resource === null && servers.length === 0) return null;
  if (resource === null || servers.length === 0) {
    throw new ConfigError('MCP_RESOURCE_URL and MCP_AUTHORIZATION_SERVERS are set together (OAuth on /mcp) or not at all');
  }
  if (servers.length > MAX_AUTHORIZATION_SERVERS)
    throw new ConfigError(`MCP_AUTHORIZATION_SERVERS holds at most ${MAX_AUTHORIZATION_SERVERS} issuers`);
  const url = webUrl(resource, 'MCP_RESOURCE_URL', production);
  // RFC 8707 section 2: a resource indicator has no fragment and should have no query; it is compared as written.
  if (url.hash !== '' || url.search !== '' || resource.includes('#') || resource.includes('?')) {
    throw new ConfigError('MCP_RESOURCE_URL must have no query and no fragment');
  }
  for (const server of servers) webUrl(server, 'MCP_AUTHORIZATION_SERVERS', production);
  return { resourceUrl: resource, authorizationServers: servers };
}

/**
 * PUBLIC_URL: an origin (scheme, host, port), since the console and the API sit at fixed paths under it;
 * else the base MCP_RESOURCE_URL already names (validated with it).
 */
function publicUrl(env: NodeJS.ProcessEnv, production: boolean): string | null {
  const raw = nonEmpty(env.PUBLIC_URL);
  if (raw === null) {
    const resource = nonEmpty(env.MCP_RESOURCE_URL);
    return resource === null ? null : resource.replace(/\/mcp\/?$/, '').replace(/\/+$/, '');
  }
  const url = webUrl(raw, 'PUBLIC_URL', production);
  if (
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    raw.includes('?') ||
    raw.includes('#') ||
    url.username ||
    url.password
  ) {
    throw new ConfigError('PUBLIC_URL must be an origin only (https://keygate.example.com): no path, query, fragment or credentials');
  }
  return url.origin;
}

/** An absolute http(s) URL; https in production, where a token sent in clear is a token given away. */
function webUrl(value: string, name: string, production: boolean): URL {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (url === null || !webProtocolAllowed(url, production)) {
    throw new ConfigError(`${name} must hold ${production ? 'https' : 'http(s)'} URLs${production ? ' when NODE_ENV=production' : ''}`);
  }
  return url;
}

/** A 32-byte key written as base64; null when unset. */
function secretKey(value: string | undefined, name: string): Buffer | null {
  const raw = nonEmpty(value);
  if (raw === null) return null;
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes written as base64 (openssl rand -base64 32)`);
  return key;
}

function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== '' ? value.trim() : null;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function logLevel(value: string | undefined): LogLevel {
  const level = nonEmpty(value)?.toLowerCase() ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return level as LogLevel;
}

/** Unset or "false": the socket address is the client. A number counts trusted hops; anything else is a list of proxies. */
function trustProxy(value: string | undefined): boolean | number | string {
  const raw = nonEmpty(value);
  if (raw === null || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
