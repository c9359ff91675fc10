import { openKeygate, SYSTEM_ACTOR } from '../src/infrastructure/jobs/keygate-jobs';

/** What the worker does before it runs an agent: the agent's role, widened by its mode session. */
export async function agentToolSet(databaseUrl: string, agentRoleId: string, modeSessionId?: string) {
  const keygate = await openKeygate({ databaseUrl });
  try {
    const { effectiveScopes, tools } = await keygate.buildAgentToolSet.execute({
      actor: SYSTEM_ACTOR,
      agentRoleId,
      modeSessionId,
    });
    return { scopes: effectiveScopes.toArray(), tools: tools.map((tool) => tool.name) };
  } finally {
    await keygate.close();
  }
}
