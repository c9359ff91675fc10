import {
  ItemKind,
  UpstreamCompletion,
  UpstreamContent,
  UpstreamContentSession,
  UpstreamItem,
  UpstreamReplyError,
} from '../../src/application/ports/upstream-content.port';
import { UpstreamServer } from '../../src/application/ports/upstream-mcp.port';

/** What one fake upstream (by URL) offers besides tools. */
export interface FakeContentBehaviour {
  resources?: UpstreamItem[];
  resourceTemplates?: UpstreamItem[];
  prompts?: UpstreamItem[];
  /** Text of each readable URI; any other URI is the upstream's -32002. */
  contents?: Record<string, string>;
  /** Completion values by argument name. */
  completions?: Record<string, string[]>;
  /** Thrown by every operation instead of answering. */
  error?: Error;
  /** Whether it declares resources.subscribe (default true). */
  subscribe?: boolean;
  /** What its initialize declares (default: resources with subscribe, prompts, completions). */
  capabilities?: Record<string, unknown>;
}

const DECLARED = { resources: { subscribe: true }, prompts: {}, completions: {} };

/** UpstreamContent in memory, counting what a real upstream would see: contacts (used sessions), then lists, reads, gets, completions. */
export class FakeUpstreamContent implements UpstreamContent {
  readonly behaviour = new Map<string, FakeContentBehaviour>();
  readonly contacts: string[] = [];
  readonly lists: { url: string; kind: ItemKind }[] = [];
  readonly reads: { url: string; uri: string }[] = [];
  readonly gets: { url: string; name: string; args: Record<string, string> | undefined }[] = [];
  readonly completions: { url: string; params: UpstreamCompletion }[] = [];
  readonly follows: { url: string; uri: string; on: boolean }[] = [];
  /** The headers of each open, in order: what the upstream's requests would carry. */
  readonly headers: Record<string, string>[] = [];

  serve(url: string, behaviour: FakeContentBehaviour): this {
    this.behaviour.set(url, behaviour);
    return this;
  }

  open(server: UpstreamServer): UpstreamContentSession {
    this.headers.push({ ...server.headers });
    let connected = false;
    const contact = (): FakeContentBehaviour => {
      if (!connected) this.contacts.push(server.url);
      connected = true;
      const behaviour = this.behaviour.get(server.url) ?? {};
      if (behaviour.error) throw behaviour.error;
      return behaviour;
    };
    return {
      list: async (kind) => {
        const behaviour = contact();
        this.lists.push({ url: server.url, kind });
        return structuredClone(behaviour[kind] ?? []);
      },
      readResource: async (uri) => {
        const text = contact().contents?.[uri];
        this.reads.push({ url: server.url, uri });
        if (text === undefined) throw new UpstreamReplyError(-32002, `Resource ${uri} not found`);
        return { contents: [{ uri, mimeType: 'text/plain', text }] };
      },
      getPrompt: async (name, args) => {
        contact();
        this.gets.push({ url: server.url, name, args });
        return { messages: [{ role: 'user', content: { type: 'text', text: `${name} with ${JSON.stringify(args ?? {})}` } }] };
      },
      complete: async (params) => {
        const values = contact().completions?.[params.argument.name] ?? [];
        this.completions.push({ url: server.url, params });
        return { completion: { values: values.filter((value) => value.startsWith(params.argument.value)) } };
      },
      follow: async (uri, on) => {
        const behaviour = contact();
        if (behaviour.subscribe === false) return false;
        this.follows.push({ url: server.url, uri, on });
        if (behaviour.contents?.[uri] === undefined) throw new UpstreamReplyError(-32002, `Resource ${uri} not found`);
        return true;
      },
      capabilities: async () => {
        const behaviour = contact();
        return structuredClone(behaviour.capabilities ?? (behaviour.subscribe === false ? { ...DECLARED, resources: {} } : DECLARED));
      },
      close: async () => undefined,
    };
  }

  countOf(url: string): number {
    return this.contacts.filter((entry) => entry === url).length;
  }
}
