import { ItemKind, UpstreamCompletion, UpstreamContentSession, UpstreamItem } from '../../../application/ports/upstream-content.port';
import { UpstreamSession, UpstreamTool } from '../../../application/ports/upstream-mcp.port';

export type UpstreamContact = UpstreamSession & UpstreamContentSession;

/**
 * A contact whose kind waits on the upstream's profile: `choose` (called on
 * first use, so an unused contact still costs nothing) gives the 2026 or the
 * 2025 session, and every operation goes to it.
 */
export class ProfiledUpstreamSession implements UpstreamSession, UpstreamContentSession {
  private chosen: Promise<UpstreamContact> | null = null;

  constructor(private readonly choose: () => Promise<UpstreamContact>) {}

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

  capabilities(): Promise<Record<string, unknown>> {
    return this.session().then((s) => s.capabilities());
  }

  async close(): Promise<void> {
    const session = await this.chosen?.catch(() => null);
    await session?.close();
  }

  private session(): Promise<UpstreamContact> {
    return (this.chosen ??= this.choose());
  }
}
