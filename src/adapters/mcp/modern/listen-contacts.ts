import { mayShowAny } from '../../../application/use-cases/gateway/external/upstream-item-scopes';
import { reachableAsRegistered, toServer } from '../../../application/use-cases/gateway/external/upstream-servers';
import { UpstreamView } from '../../../application/use-cases/gateway/external/upstream-view';
import { KeyPrincipal } from '../../../application/use-cases/validate-key/validate-key.use-case';
import { ResourceRecord } from '../../../domain/resource/resource-record';
import { withoutSecrets } from '../../../domain/resource/without-secrets';
import { LIST_FLAGS, ListFlag } from './listen-filter';
import { UpstreamListen, UpstreamNotice, upstreamOffers } from './listen-upstream';
import { UpstreamListener } from './upstream-listener';

/** One upstream held open for one listen stream. */
export interface Contact {
  /** `<id>@<version>`: an edited record is another contact. */
  key: string;
  record: ResourceRecord;
  /** Upstream URI → the URI the client named. */
  uris: Map<string, string>;
  listen: UpstreamListen | null;
  closed: boolean;
  /** Digest of every tool keygate lists from the upstream, when its tools/list_changed is followed. */
  tools: string | null;
}

/** What of a listen stream its contacts depend on. */
export interface ContactHolder {
  principal: KeyPrincipal;
  view: UpstreamView;
  flags: Set<ListFlag>;
  /** The URIs asked for and routed, by record id: what a resync keeps following. */
  routed: Map<string, Map<string, string>>;
  contacts: Map<string, Contact>;
}

export interface ContactHooks<T> {
  heard(holder: T, contact: Contact, notice: UpstreamNotice): void;
  /** A contact listens now, asking for these flags. */
  opened(holder: T, contact: Contact, flags: ReadonlySet<ListFlag>): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;
/** Reopens in a row (an upstream that ends its side again at once, or cannot be reached): past them, the contact is given up, logged. */
export const MAX_REOPENS = 8;
/** A contact that lasted this long ended as a healthy one does: its reopens start again from the first pause. */
const LASTED_MS = MAX_BACKOFF_MS;

/**
 * The upstream contacts of the listen streams on this replica: for each
 * stream, one per upstream the view shows (list flags) or that a URI routes
 * to, asking it for the flags it declares (prompt and resource list changes
 * only where the key may see such items) and the URIs where it declares
 * subscribe; re-listened after a pause (doubling, up to 30 s) when the
 * upstream ends its side, given up after MAX_REOPENS in a row that did not
 * last; at most `maxUpstreams` (MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA) at once.
 */
export class ListenContacts<T extends ContactHolder> {
  private upstreams = 0;

  constructor(
    private readonly sources: { servers(userId: string, view: UpstreamView): Promise<readonly ResourceRecord[]> },
    private readonly listener: UpstreamListener,
    private readonly maxUpstreams: number,
    private readonly hooks: ContactHooks<T>,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** Opens the upstream contacts the stream needs now, and closes those it no longer needs (a record edited or removed). */
  async resync(listening: T): Promise<void> {
    const { principal, view } = listening;
    const upstreamFlags = LIST_FLAGS.filter((flag) => listening.flags.has(flag));
    const records = upstreamFlags.length > 0 || listening.routed.size > 0 ? await this.sources.servers(principal.userId, view) : [];
    const wanted = new Map(records.filter((r) => upstreamFlags.length > 0 || listening.routed.has(r.id)).map((r) => [contactKey(r), r]));
    for (const [key, contact] of listening.contacts) {
      if (wanted.has(key)) continue;
      this.closeContact(contact);
      listening.contacts.delete(key);
    }
    await Promise.all(
      [...wanted]
        .filter(([key]) => !listening.contacts.has(key))
        .map(([key, record]) => {
          const contact: Contact = {
            key,
            record,
            uris: listening.routed.get(record.id) ?? new Map<string, string>(),
            listen: null,
            closed: false,
            tools: null,
          };
          listening.contacts.set(key, contact);
          return this.connect(listening, contact, 0);
        }),
    );
  }

  private async connect(listening: T, contact: Contact, failures: number): Promise<void> {
    if (contact.closed) return;
    if (this.upstreams >= this.maxUpstreams) {
      return this.log(
        `no upstream contact opened for a subscriptions/listen stream: this replica holds ${this.maxUpstreams} (MCP_MAX_UPSTREAM_STREAMS_PER_REPLICA)`,
      );
    }
    if (!reachableAsRegistered(contact.record)) return;
    this.upstreams++;
    let listen: UpstreamListen | null = null;
    let failed = false;
    try {
      const server = toServer(contact.record);
      const profile = await this.listener.profile(server);
      const offers = upstreamOffers(profile.era === 'unknown' ? {} : profile.capabilities);
      // Prompt and resource list changes only from an upstream where the key may see such items at all.
      const flags = new Set(
        [...listening.flags].filter(
          (flag) =>
            offers.flags.has(flag) &&
            (flag === 'toolsListChanged' ||
              mayShowAny(contact.record, flag === 'promptsListChanged' ? 'prompt_scopes' : 'resource_scopes', listening.principal.scopes)),
        ),
      );
      const uris = offers.subscribe ? [...contact.uris.keys()] : [];
      if (flags.size > 0 || uris.length > 0) {
        listen = await this.listener.open(
          { server, flags, uris, onNotice: (notice) => this.hooks.heard(listening, contact, notice) },
          profile,
        );
      }
      if (listen !== null) await this.hooks.opened(listening, contact, flags);
    } catch (error) {
      // The message only, the header values taken out: a transport quotes a value it refuses.
      const headers = Object.values((contact.record.data.headers ?? {}) as Record<string, string>);
      const reason = withoutSecrets(String((error as Error)?.message ?? error), headers).slice(0, 300);
      this.log(
        `MCP server ${contact.record.data.name as string} (${contact.record.id}) could not be listened to for a subscriptions/listen stream: ${reason}`,
      );
      failed = true;
    }
    if (listen === null || contact.closed) {
      this.upstreams--;
      if (listen !== null) await listen.close();
      // A reopen that failed is tried again within the bound; a first open that failed is not.
      else if (failed && failures > 0) await this.reopen(listening, contact, failures);
      return;
    }
    contact.listen = listen;
    const since = Date.now();
    void listen.ended.then(async () => {
      if (contact.closed || contact.listen !== listen) return;
      this.upstreams--;
      contact.listen = null;
      // The upstream ended its side (a 2025 one forgot keygate's session): listened to again after a pause, as long as the client's stream lasts.
      await this.reopen(listening, contact, Date.now() - since >= LASTED_MS ? 0 : failures);
    });
  }

  /** Opens the contact again after a pause that doubles with each reopen in a row, or gives it up past MAX_REOPENS. */
  private async reopen(listening: T, contact: Contact, failures: number): Promise<void> {
    if (contact.closed) return;
    if (failures >= MAX_REOPENS) {
      return this.log(
        `MCP server ${contact.record.data.name as string} (${contact.record.id}) is no longer listened to for a subscriptions/listen stream: ` +
          `its side ended ${MAX_REOPENS} times in a row`,
      );
    }
    await delay(Math.min(1000 * 2 ** failures, MAX_BACKOFF_MS));
    await this.connect(listening, contact, failures + 1);
  }

  closeAll(listening: T): void {
    for (const contact of listening.contacts.values()) this.closeContact(contact);
    listening.contacts.clear();
  }

  private closeContact(contact: Contact): void {
    if (contact.closed) return;
    contact.closed = true;
    const listen = contact.listen;
    contact.listen = null;
    if (listen === null) return;
    this.upstreams--;
    listen.close().catch((error) => this.log('could not close an upstream contact of a subscriptions/listen stream', error));
  }
}

function contactKey(record: ResourceRecord): string {
  return `${record.id}@${record.updatedAt.toISOString()}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
