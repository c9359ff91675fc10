/** Service identifiers for everything that is not bound by its own class. */
export const TOKENS = {
  Config: Symbol.for('keygate.Config'),
  DataSource: Symbol.for('keygate.DataSource'),
  ApiKeyRepository: Symbol.for('keygate.ApiKeyRepository'),
  KeyHasher: Symbol.for('keygate.KeyHasher'),
  KeyGenerator: Symbol.for('keygate.KeyGenerator'),
  Clock: Symbol.for('keygate.Clock'),
  KeyPolicy: Symbol.for('keygate.KeyPolicy'),
  HotPath: Symbol.for('keygate.HotPath'),
  Metrics: Symbol.for('keygate.Metrics'),
  Logger: Symbol.for('keygate.Logger'),
  SecretBox: Symbol.for('keygate.SecretBox'),
  AccessTokenVerifier: Symbol.for('keygate.AccessTokenVerifier'),
  AgentRoleRepository: Symbol.for('keygate.AgentRoleRepository'),
  ModeToolConfigRepository: Symbol.for('keygate.ModeToolConfigRepository'),
  ModeSessionRepository: Symbol.for('keygate.ModeSessionRepository'),
} as const;
