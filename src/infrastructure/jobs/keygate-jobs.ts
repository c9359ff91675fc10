import { DataSource } from 'typeorm';
import { BuildAgentToolSet } from '../../application/use-cases/build-agent-tool-set/build-agent-tool-set.use-case';
import { CreateKey } from '../../application/use-cases/create-key/create-key.use-case';
import { FilterTools } from '../../application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { EndModeSession } from '../../application/use-cases/mode-sessions/end-mode-session.use-case';
import { StartModeSession } from '../../application/use-cases/mode-sessions/start-mode-session.use-case';
import { ResolveAgentScopes } from '../../application/use-cases/resolve-agent-scopes/resolve-agent-scopes.use-case';
import { RevokeKey } from '../../application/use-cases/revoke-key/revoke-key.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { Actor } from '../../domain/actor';
import { loadConfig } from '../config/config';
import { createDataSource } from '../database/data-source';
import { buildContainer } from '../di/container';
import { Lifecycle } from '../di/lifecycle';

/** Internal jobs act for the platform, not for a user: they may see every user's sessions. */
export const SYSTEM_ACTOR: Actor = { userId: '00000000-0000-0000-0000-000000000000', isAdmin: true };

export interface KeygateJobs {
  resolveAgentScopes: ResolveAgentScopes;
  buildAgentToolSet: BuildAgentToolSet;
  filterTools: FilterTools;
  startModeSession: StartModeSession;
  endModeSession: EndModeSession;
  validateKey: ValidateKey;
  createKey: CreateKey;
  revokeKey: RevokeKey;
  close(): Promise<void>;
}

/**
 * The use-cases wired to PostgreSQL without HTTP, for workers in the same
 * codebase. Pass a DataSource the job already has, or a URL to open one.
 */
export async function openKeygate(options: { databaseUrl: string } | { dataSource: DataSource }): Promise<KeygateJobs> {
  const owned = 'databaseUrl' in options;
  const dataSource = owned ? createDataSource({ url: options.databaseUrl, applicationName: 'keygate-job' }) : options.dataSource;
  if (!dataSource.isInitialized) await dataSource.initialize();
  const database = {
    dataSource,
    async close() {
      if (owned && dataSource.isInitialized) await dataSource.destroy();
    },
  };
  // SECRETS_KEY when set; no job reads stored secrets, so none is made up (a store that needs one refuses).
  const c = buildContainer({ config: loadConfig({ ...process.env, NODE_ENV: 'job' }), database });
  // Not started: a job's key look-ups and last_used_at writes go straight to PostgreSQL, and it holds
  // no LISTEN connection that would keep its process alive. Stopping still closes the pool it owns.
  const lifecycle = c.get(Lifecycle);
  return {
    resolveAgentScopes: c.get(ResolveAgentScopes),
    buildAgentToolSet: c.get(BuildAgentToolSet),
    filterTools: c.get(FilterTools),
    startModeSession: c.get(StartModeSession),
    endModeSession: c.get(EndModeSession),
    validateKey: c.get(ValidateKey),
    createKey: c.get(CreateKey),
    revokeKey: c.get(RevokeKey),
    close: () => lifecycle.stop(),
  };
}
