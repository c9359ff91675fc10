import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/infrastructure/config/config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      databaseUrl: null,
      dataDir: path.resolve('.data'),
      maxKeysPerUser: 100,
      jwt: { jwksUri: null, issuer: null, audience: null, adminRole: 'admin' },
      audit: { retentionDays: 400 },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u:p@db:5432/keygate',
      DATA_DIR: '/var/lib/keygate',
      JWT_JWKS_URI: 'https://idp/jwks',
      JWT_ISSUER: 'https://idp/',
      JWT_AUDIENCE: 'keygate',
      JWT_ADMIN_ROLE: 'platform-admin',
      MAX_KEYS_PER_USER: '7',
      AUDIT_RETENTION_DAYS: '30',
    });
    expect(config).toMatchObject({
      port: 9000,
      databaseUrl: 'postgres://u:p@db:5432/keygate',
      dataDir: '/var/lib/keygate',
      maxKeysPerUser: 7,
      audit: { retentionDays: 30 },
      jwt: { jwksUri: 'https://idp/jwks', issuer: 'https://idp/', audience: 'keygate', adminRole: 'platform-admin' },
    });
  });

  it('sizes the MCP-server-list cache like the key cache unless SERVER_LIST_CACHE_MAX_ENTRIES says otherwise', () => {
    expect(loadConfig({}).hotPath).toMatchObject({ keyCacheEntries: 10_000, serverListCacheEntries: 10_000 });
    expect(loadConfig({ KEY_CACHE_MAX_ENTRIES: '0' }).hotPath).toMatchObject({ keyCacheEntries: 0, serverListCacheEntries: 0 });
    expect(loadConfig({ KEY_CACHE_MAX_ENTRIES: '0', SERVER_LIST_CACHE_MAX_ENTRIES: '5000' }).hotPath).toMatchObject({
      keyCacheEntries: 0,
      serverListCacheEntries: 5000,
    });
    expect(() => loadConfig({ SERVER_LIST_CACHE_MAX_ENTRIES: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ SERVER_LIST_CACHE_MAX_ENTRIES: 'many' })).toThrow(/SERVER_LIST_CACHE_MAX_ENTRIES/);
  });

  it('serves cached keys for KEY_CACHE_STALE_AFTER_MS after the change listener drops, 5 s unless set', () => {
    expect(loadConfig({}).hotPath.staleAfterMs).toBe(5000);
    expect(loadConfig({ KEY_CACHE_STALE_AFTER_MS: '0' }).hotPath.staleAfterMs).toBe(0);
    expect(() => loadConfig({ KEY_CACHE_STALE_AFTER_MS: '-1' })).toThrow(/KEY_CACHE_STALE_AFTER_MS/);
    expect(() => loadConfig({ KEY_CACHE_STALE_AFTER_MS: 'soon' })).toThrow(ConfigError);
  });

  it('refuses production without an identity provider', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_JWKS_URI is required/);
    const production = {
      NODE_ENV: 'production',
      JWT_JWKS_URI: 'https://idp/jwks',
      JWT_ISSUER: 'https://idp/',
      JWT_AUDIENCE: 'keygate',
      SECRETS_KEY: KEY,
    };
    expect(loadConfig(production).jwt.jwksUri).toBe('https://idp/jwks');
  });

  const KEY = Buffer.alloc(32, 7).toString('base64');

  it.each(['JWT_ISSUER', 'JWT_AUDIENCE', 'SECRETS_KEY'])('refuses production without %s, naming it', (name) => {
    const production: Record<string, string> = {
      NODE_ENV: 'production',
      JWT_JWKS_URI: 'https://idp/jwks',
      JWT_ISSUER: 'https://idp/',
      JWT_AUDIENCE: 'keygate',
      SECRETS_KEY: KEY,
    };
    delete production[name];
    expect(() => loadConfig(production)).toThrow(`${name} is required when NODE_ENV=production`);
  });

  it('reads the secrets keys and the upstream limits', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    const config = loadConfig({
      SECRETS_KEY: KEY,
      SECRETS_KEY_PREVIOUS: other,
      MCP_UPSTREAM_MAX_BYTES: '2048',
      MCP_UPSTREAM_MAX_PAGES: '3',
      MCP_UPSTREAM_LIST_TTL_SECONDS: '5',
      MAX_MCP_SERVERS_PER_USER: '2',
    });
    expect(config.secrets.key).toEqual(Buffer.alloc(32, 7));
    expect(config.secrets.previous).toEqual([Buffer.alloc(32, 9)]);
    expect(config.mcp).toMatchObject({
      upstreamMaxBytes: 2048,
      upstreamMaxPages: 3,
      upstreamMaxTools: 500,
      upstreamListTtlSeconds: 5,
      maxServersPerUser: 2,
    });
    expect(loadConfig({}).mcp).toMatchObject({
      upstreamMaxBytes: 1048576,
      upstreamMaxPages: 10,
      upstreamListTtlSeconds: 60,
      maxServersPerUser: 20,
    });
    expect(loadConfig({}).mcp).toMatchObject({ relayCallTimeoutMs: 300_000, relayAnswerTimeoutMs: 60_000 });
    expect(loadConfig({ MCP_RELAY_CALL_TIMEOUT_MS: '9000', MCP_RELAY_ANSWER_TIMEOUT_MS: '700' }).mcp).toMatchObject({
      relayCallTimeoutMs: 9000,
      relayAnswerTimeoutMs: 700,
    });
    expect(() => loadConfig({ MCP_RELAY_ANSWER_TIMEOUT_MS: '600001' })).toThrow(/MCP_RELAY_ANSWER_TIMEOUT_MS/);
  });

  it('reads the MCP session settings: 1800 s idle, 100 sessions per key, 1000 streams per replica, 8 per key by default', () => {
    expect(loadConfig({}).mcp).toMatchObject({
      sessionIdleSeconds: 1800,
      maxSessionsPerKey: 100,
      maxStreamsPerReplica: 1000,
      maxStreamsPerKey: 8,
    });
    expect(
      loadConfig({
        MCP_SESSION_IDLE_SECONDS: '2',
        MCP_MAX_SESSIONS_PER_KEY: '3',
        MCP_MAX_STREAMS_PER_REPLICA: '4',
        MCP_MAX_STREAMS_PER_KEY: '3',
      }).mcp,
    ).toMatchObject({ sessionIdleSeconds: 2, maxSessionsPerKey: 3, maxStreamsPerReplica: 4, maxStreamsPerKey: 3 });
  });

  it('reads APPROVAL_TTL_SECONDS: 900 by default, 1 to 604800', () => {
    expect(loadConfig({}).mcp.approvalTtlSeconds).toBe(900);
    expect(loadConfig({ APPROVAL_TTL_SECONDS: '5' }).mcp.approvalTtlSeconds).toBe(5);
    expect(() => loadConfig({ APPROVAL_TTL_SECONDS: '0' })).toThrow(/APPROVAL_TTL_SECONDS/);
    expect(() => loadConfig({ APPROVAL_TTL_SECONDS: '604801' })).toThrow(/APPROVAL_TTL_SECONDS/);
  });

  it("refuses a key's share of streams that is not below the replica's bound", () => {
    expect(() => loadConfig({ MCP_MAX_STREAMS_PER_REPLICA: '8' })).toThrow(
      'MCP_MAX_STREAMS_PER_KEY (8) must be below MCP_MAX_STREAMS_PER_REPLICA (8)',
    );
    expect(() => loadConfig({ MCP_MAX_STREAMS_PER_REPLICA: '5', MCP_MAX_STREAMS_PER_KEY: '6' })).toThrow(
      /MCP_MAX_STREAMS_PER_KEY \(6\) must be below/,
    );
    expect(loadConfig({ MCP_MAX_STREAMS_PER_REPLICA: '2', MCP_MAX_STREAMS_PER_KEY: '1' }).mcp.maxStreamsPerKey).toBe(1);
  });

  it.each([
    ['MCP_SESSION_IDLE_SECONDS', '0'],
    ['MCP_SESSION_IDLE_SECONDS', '604801'],
    ['MCP_SESSION_IDLE_SECONDS', '1.5'],
    ['MCP_MAX_SESSIONS_PER_KEY', '0'],
    ['MCP_MAX_SESSIONS_PER_KEY', '10001'],
    ['MCP_MAX_STREAMS_PER_REPLICA', '0'],
    ['MCP_MAX_STREAMS_PER_REPLICA', 'many'],
    ['MCP_MAX_STREAMS_PER_KEY', '0'],
    ['MCP_MAX_STREAMS_PER_KEY', '2.5'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name} must be an integer from`));
  });

  it('reads SECRET_SCANNING_KEYS_URL, unset by default, https required in production', () => {
    expect(loadConfig({}).secretScanning).toEqual({ keysUrl: null });
    expect(loadConfig({ SECRET_SCANNING_KEYS_URL: 'http://127.0.0.1:9/keys' }).secretScanning.keysUrl).toBe('http://127.0.0.1:9/keys');
    const production = {
      NODE_ENV: 'production',
      JWT_JWKS_URI: 'https://idp/jwks',
      JWT_ISSUER: 'https://idp/',
      JWT_AUDIENCE: 'keygate',
      SECRETS_KEY: KEY,
    };
    const github = 'https://api.github.com/meta/public_keys/secret_scanning';
    expect(loadConfig({ ...production, SECRET_SCANNING_KEYS_URL: github }).secretScanning.keysUrl).toBe(github);
    expect(() => loadConfig({ ...production, SECRET_SCANNING_KEYS_URL: 'http://keys.internal/list' })).toThrow(
      /SECRET_SCANNING_KEYS_URL must be an https URL/,
    );
  });

  it('refuses an http JWT_JWKS_URI in production, where whoever sits on the path could mint admin tokens', () => {
    const production = { NODE_ENV: 'production', JWT_ISSUER: 'https://idp/', JWT_AUDIENCE: 'keygate', SECRETS_KEY: KEY };
    expect(() => loadConfig({ ...production, JWT_JWKS_URI: 'http://idp.internal/jwks' })).toThrow(
      /JWT_JWKS_URI must be an https URL when NODE_ENV=production/,
    );
    expect(loadConfig({ ...production, JWT_JWKS_URI: 'https://idp/jwks' }).jwt.jwksUri).toBe('https://idp/jwks');
    expect(loadConfig({ JWT_JWKS_URI: 'http://127.0.0.1:9/jwks' }).jwt.jwksUri).toBe('http://127.0.0.1:9/jwks');
  });

  it.each(['not a url', 'ftp://idp/jwks', 'file:///etc/jwks.json'])('refuses JWT_JWKS_URI=%s', (value) => {
    expect(() => loadConfig({ JWT_JWKS_URI: value })).toThrow(/JWT_JWKS_URI must be an http\(s\) URL/);
  });

  it('reads JWT_MAX_LIFETIME_SECONDS, 86400 by default', () => {
    expect(loadConfig({}).jwt.maxLifetimeSeconds).toBe(86_400);
    expect(loadConfig({ JWT_MAX_LIFETIME_SECONDS: '3600' }).jwt.maxLifetimeSeconds).toBe(3600);
    for (const value of ['0', '59', '31622401', '1e300', 'forever']) {
      expect(() => loadConfig({ JWT_MAX_LIFETIME_SECONDS: value })).toThrow(/JWT_MAX_LIFETIME_SECONDS must be an integer from 60/);
    }
  });

  it.each(['not a url', 'ftp://keys/list', 'file:///etc/keys'])('refuses SECRET_SCANNING_KEYS_URL=%s', (value) => {
    expect(() => loadConfig({ SECRET_SCANNING_KEYS_URL: value })).toThrow(/SECRET_SCANNING_KEYS_URL must be an http\(s\) URL/);
  });

  it('reads the audit queue settings, 250 ms, 500 and 100,000 by default', () => {
    expect(loadConfig({}).audit).toMatchObject({ flushMs: 250, batchSize: 500, maxPending: 100_000 });
    expect(loadConfig({ AUDIT_FLUSH_MS: '1000', AUDIT_BATCH_SIZE: '50', AUDIT_QUEUE_MAX: '2000' }).audit).toMatchObject({
      flushMs: 1000,
      batchSize: 50,
      maxPending: 2000,
    });
  });

  it('reads the usage settings, a 5000 ms flush and 30 days of minute buckets by default', () => {
    expect(loadConfig({}).usage).toEqual({ flushIntervalMs: 5000, retentionDays: 30 });
    expect(loadConfig({ USAGE_FLUSH_INTERVAL_MS: '250', USAGE_RETENTION_DAYS: '7' }).usage).toEqual({
      flushIntervalMs: 250,
      retentionDays: 7,
    });
  });

  it.each(['short', Buffer.alloc(16).toString('base64'), 'not base64!'])('refuses SECRETS_KEY %s', (value) => {
    expect(() => loadConfig({ SECRETS_KEY: value })).toThrow(/SECRETS_KEY must be 32 bytes/);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['MAX_KEYS_PER_USER', '0'],
    ['MAX_KEYS_PER_USER', '1.5'],
    ['DATABASE_URL', 'mysql://db/keygate'],
    ['AUDIT_FLUSH_MS', '5'],
    ['AUDIT_BATCH_SIZE', '0'],
    ['AUDIT_QUEUE_MAX', 'many'],
    ['AUDIT_RETENTION_DAYS', '0'],
    ['AUDIT_RETENTION_DAYS', '7.5'],
    ['AUDIT_RETENTION_DAYS', 'forever'],
    ['AUDIT_RETENTION_DAYS', '36501'],
    ['USAGE_FLUSH_INTERVAL_MS', '50'],
    ['USAGE_FLUSH_INTERVAL_MS', 'soon'],
    ['USAGE_RETENTION_DAYS', '0'],
    ['USAGE_RETENTION_DAYS', '401'],
  ])('rejects %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
