import { Agent } from 'undici';
import { UpstreamContent } from '../../../application/ports/upstream-content.port';
import { UpstreamMcp, UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { pinnedAgent } from './pinned-agent';
import { SdkUpstreamSession, UpstreamLimits } from './sdk-upstream-session';
import { UpstreamAddressGuard } from './upstream-address-guard';

/**
 * UpstreamMcp (tools) and UpstreamContent (resources, prompts, completion)
 * with the SDK client over Streamable HTTP: short sessions
 * (stateless, like us) sharing one connection pool whose connections go only
 * to addresses the guard checked.
 */
export class SdkUpstreamMcp implements UpstreamMcp, UpstreamContent {
  private readonly agent: Agent;

  constructor(guard: UpstreamAddressGuard, private readonly limits: UpstreamLimits) {
    this.agent = pinnedAgent(guard, limits.timeoutMs);
  }

  open(server: UpstreamServer): SdkUpstreamSession {
    return new SdkUpstreamSession(server, this.agent, this.limits);
  }
}
