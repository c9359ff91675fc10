import { ItemKind, UpstreamCompletion, UpstreamContentSession, UpstreamItem } from '../../../application/ports/upstream-content.port';
import { UpstreamSession, UpstreamTool } from '../../../application/ports/upstream-mcp.port';

export type UpstreamContact = UpstreamSession & UpstreamContentSession;

/**
 * The session a contact goes to and, when it is set, what the contact
 * declares instead of what that session would pass on: a dual-era upstream's
 * own declaration, since a 2025 session gets all of it through the 2025 path.
 */
export interface ChosenContact {
  session: UpstreamContact;
  declared?: Record<string, unknown>;
}

/**
 * A contact whose kind waits on the upstream's profile: `choose` (called on
 * first use, so an unused contact still costs nothing) gives the 2026 or the
 * 2025 session, and every operation goes to it.
 */
export class ProfiledUpstreamSession implements UpstreamSession, UpstreamContentSession {
  private chosen: Promise<ChosenContact> | null = null;

  constructor(private readonly choose: () => Promise<ChosenContact>) {}

  listTools(): Promise<UpstreamTool[]> {
    return this.session().then((s) => s.listTools());
  }

  callTool(tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    return this.session().then((s) => s.callTool(tool, args));
  }

  list(kind: ItemKind): Promise<UpstreamItem[]> {
    return this.session().then((s) => s.list(kind));
  }

  readResource(uri: string): Promise<Record<string, unknown>> {
    return this.session().then((s) => s.readResource(uri));
  }

  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Record<string, unknown>> {
    return this.session().then((s) => s.getPrompt(name, args));
  }

  complete(params: UpstreamCompletion): Promise<Record<string, unknown>> {
    return this.session().then((s) => s.complete(params));
  }

  follow(uri: string, on: boolean): Promise<boolean> {
    return this.session().then((s) => s.follow(uri, on));
  }

  async capabilities(): Promise<Record<string, unknown>> {
    const { session, declared } = await (this.chosen ??= this.choose());
    return declared !== undefined ? { ...declared } : session.capabilities();
  }

  async close(): Promise<void> {
    const chosen = await this.chosen?.catch(() => null);
    await chosen?.session.close();
  }

  private session(): Promise<UpstreamContact> {
    return (this.chosen ??= this.choose()).then(({ session }) => session);
  }
}
