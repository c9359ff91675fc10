import { UpstreamServer } from '../../../application/ports/upstream-mcp.port';
import { UpstreamProfile } from '../upstream/upstream-profile';
import { ListFlag } from './listen-filter';

/** A message an upstream sent on a contact held for a listen stream: only its method and params matter. */
export interface UpstreamNotice {
  method: string;
  params?: Record<string, unknown>;
}

/** What one held contact asks the upstream for: list flags the upstream declares, and URIs on it. */
export interface UpstreamListenRequest {
  server: UpstreamServer;
  flags: ReadonlySet<ListFlag>;
  uris: readonly string[];
  onNotice(notice: UpstreamNotice): void;
}

/** A contact held open for one listen stream. */
export interface UpstreamListen {
  /** The URIs the upstream agreed to follow. */
  followed: ReadonlySet<string>;
  /** Settles when the contact ended without close() (the upstream went away). */
  ended: Promise<void>;
  close(): Promise<void>;
}

export interface UpstreamListenLimits {
  /** Connecting, and each request of the contact (MCP_UPSTREAM_TIMEOUT_MS); the stream itself lasts. */
  timeoutMs: number;
  /** Largest message (MCP_UPSTREAM_MAX_BYTES). */
  maxBytes: number;
}

/** The notifications a listen stream carries; anything else an upstream sends is dropped where it arrives. */
export const CHANGE_METHODS: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

/** The upstream's profile, learned once per record version (SdkUpstreamMcp). */
export type ProfileSource = (server: UpstreamServer) => Promise<UpstreamProfile>;

/** What an upstream's declared capabilities let keygate ask of it. */
export function upstreamOffers(capabilities: Record<string, unknown>): { flags: Set<ListFlag>; subscribe: boolean } {
  const at = (name: string) => {
    const value = capabilities[name];
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  };
  const flags = new Set<ListFlag>();
  if (at('tools')?.listChanged === true) flags.add('toolsListChanged');
  if (at('prompts')?.listChanged === true) flags.add('promptsListChanged');
  if (at('resources')?.listChanged === true) flags.add('resourcesListChanged');
  return { flags, subscribe: at('resources')?.subscribe === true };
}
