import { Agent } from 'undici';
import { UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { UpstreamProfile } from '../upstream/upstream-profile';
import { ProfileSource, UpstreamListen, UpstreamListenLimits, UpstreamListenRequest } from './listen-upstream';
import { openLegacyListen } from './listen-upstream-legacy';
import { openModernListen } from './listen-upstream-modern';

/**
 * Opens the upstream contacts a listen stream holds, in the upstream's own
 * revision: a 2026-07-28 upstream gets a subscriptions/listen of its own
 * (the SDK v2 client), a 2025 one a session of keygate's with its GET stream
 * open and resources/subscribe for each URI, ended (DELETE) when the listen
 * stream closes. An upstream whose revision is not known gets none.
 */
export class UpstreamListener {
  constructor(
    private readonly profiles: ProfileSource,
    private readonly agent: Agent,
    private readonly limits: UpstreamListenLimits,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  profile(server: UpstreamServer): Promise<UpstreamProfile> {
    return this.profiles(server);
  }

  async open(request: UpstreamListenRequest, profile: UpstreamProfile): Promise<UpstreamListen | null> {
    if (profile.era === 'modern') return openModernListen(request, profile.discover, this.agent, this.limits);
    if (profile.era === 'legacy') return openLegacyListen(request, profile.capabilities, this.agent, this.limits, this.log);
    return null;
  }
}
