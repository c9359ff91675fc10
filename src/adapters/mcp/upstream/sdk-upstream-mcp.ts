import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent } from 'undici';
import { LoadingCache } from '../../../application/ports/loading-cache.port';
import { UpstreamContent } from '../../../application/ports/upstream-content.port';
import { UpstreamContext, UpstreamMcp, UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { UpstreamSessionStore } from '../../../application/ports/upstream-session-store.port';
import { pinnedAgent } from './pinned-agent';
import { relayedCapabilities } from './relaying-client';
import { upstreamFetch } from './upstream-fetch';
import { SdkUpstreamSession, UpstreamLimits } from './sdk-upstream-session';
import { UpstreamAddressGuard } from './upstream-address-guard';
import { ModernUpstreamSession } from './modern-upstream-session';
import { ChosenContact, ProfiledUpstreamSession, UpstreamContact } from './profiled-upstream-session';
import { learnProfile, profileKey, UpstreamProfile } from './upstream-profile';

/**
 * UpstreamMcp (tools) and UpstreamContent (resources, prompts, completion)
 * with the SDK client over Streamable HTTP, sharing one connection pool whose
 * connections go only to addresses the guard checked: short stateless
 * contacts (like us), or, within a client session and with a session `store`,
 * contacts continuing keygate's own session with that upstream.
 *
 * Each record version's upstream is probed once (`profiles`, bounded and
 * expiring like its capabilities): one that speaks 2026-07-28 only gets
 * stateless 2026 contacts through the SDK v2 client; a 2025 one (or one not
 * learned) the 2025 contacts above, unchanged. A dual-era one is spoken to
 * in the client's era: 2025 within a 2025 client session (so its logging,
 * subscriptions and list changes reach the session's streams as a 2025
 * upstream's do), 2026 otherwise (a 2026 client's contact, and the loads of
 * lists and capabilities behind either).
 */
export class SdkUpstreamMcp implements UpstreamMcp, UpstreamContent {
  private readonly agent: Agent;

  constructor(
    guard: UpstreamAddressGuard,
    private readonly limits: UpstreamLimits,
    private readonly store?: UpstreamSessionStore,
    private readonly profiles?: LoadingCache<UpstreamProfile>,
  ) {
    this.agent = pinnedAgent(guard, limits.timeoutMs);
  }

  open(server: UpstreamServer, context: UpstreamContext = {}): UpstreamContact {
    const { id, version } = server;
    if (this.profiles === undefined || id === undefined || version === undefined) return this.legacy(server, context);
    const profiles = this.profiles;
    return new ProfiledUpstreamSession(async (): Promise<ChosenContact> => {
      let failure: { error: unknown } | undefined;
      const profile = await profiles.get(profileKey({ id, version }), async () => {
        try {
          return await this.learn(server);
        } catch (error) {
          failure = { error };
          return { era: 'unknown' };
        }
      });
      // This contact's own probe failed: it fails with that, as its 2025 contact would have, without waiting on the upstream twice.
      if (failure) throw failure.error;
      if (profile.era !== 'modern' || (profile.dual && context.clientSessionId !== undefined))
        return { session: this.legacy(server, context) };
      const session = new ModernUpstreamSession(
        server,
        this.agent,
        this.limitsFor(context),
        profile,
        context,
        this.relayable(server, context),
      );
      return profile.dual ? { session, declared: profile.capabilities } : { session };
    });
  }

  /**
   * The upstream's profile as open() learns it (once per record version);
   * `unknown` when it could not be learned. subscriptions/listen picks its
   * upstream contact by it (modern/listen-upstream.ts).
   */
  async profileOf(server: UpstreamServer): Promise<UpstreamProfile> {
    const { id, version } = server;
    if (this.profiles === undefined || id === undefined || version === undefined) return { era: 'unknown' };
    return this.profiles.get(profileKey({ id, version }), () => this.learn(server).catch((): UpstreamProfile => ({ era: 'unknown' })));
  }

  private legacy(server: UpstreamServer, context: UpstreamContext): SdkUpstreamSession {
    const { clientSessionId } = context;
    const held =
      this.store && clientSessionId !== undefined && server.id !== undefined
        ? { store: this.store, clientSessionId, serverId: server.id }
        : undefined;
    return new SdkUpstreamSession(server, this.agent, this.limitsFor(context), context, held);
  }

  /** What a relayed call may declare to a 2026 upstream: what its client session's client declared and keygate relays. */
  private relayable(server: UpstreamServer, context: UpstreamContext): (() => Promise<Record<string, unknown>>) | undefined {
    const { store } = this;
    const { clientSessionId } = context;
    if (store === undefined || context.relay === undefined || clientSessionId === undefined || server.id === undefined) return undefined;
    const serverId = server.id;
    return async () => relayedCapabilities((await store.find(clientSessionId, serverId))?.clientCapabilities ?? {});
  }

  /** A relayed call may wait on a person (elicitation), so it has its own bound. */
  private limitsFor(context: UpstreamContext): UpstreamLimits {
    return context.relay && this.limits.relayedTimeoutMs ? { ...this.limits, timeoutMs: this.limits.relayedTimeoutMs } : this.limits;
  }

  /**
   * The upstream's profile, within the upstream timeout and byte cap. One that
   * cannot be learned is `unknown`, cached as long as a verdict (later contacts
   * take the 2025 path); the refusal behind a failure (address, size) is what is thrown.
   */
  private async learn(server: UpstreamServer): Promise<UpstreamProfile> {
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    let refusal: UpstreamRefusal | undefined;
    const fetch = upstreamFetch(this.agent, this.limits.maxBytes, signal, (refused) => void (refusal ??= refused));
    try {
      return await learnProfile(server, fetch, { signal, timeout: this.limits.timeoutMs });
    } catch (error) {
      throw refusal ?? error;
    }
  }

  async terminate(server: UpstreamServer, session: { upstreamSessionId: string; protocolVersion: string }): Promise<void> {
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
      fetch: upstreamFetch(this.agent, this.limits.maxBytes, signal, () => undefined),
      sessionId: session.upstreamSessionId,
    });
    transport.setProtocolVersion(session.protocolVersion);
    await transport.terminateSession().catch(() => undefined);
  }
}
