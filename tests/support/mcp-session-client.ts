/** Raw /mcp requests over fetch, for session tests across replicas. */
export const ACCEPT_BOTH = 'application/json, text/event-stream';

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'session-test', version: '1.0.0' } },
};

export function mcpPost(base: string, raw: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${raw}`, 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, ...headers },
    body: JSON.stringify(body),
  });
}

export function mcpRequest(
  base: string,
  raw: string,
  method: 'GET' | 'DELETE',
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  return fetch(`${base}/mcp`, { method, headers: { Authorization: `Bearer ${raw}`, ...headers }, signal });
}

/** Opens a session on `base`; returns its id. */
export async function initialize(base: string, raw: string): Promise<string> {
  const res = await mcpPost(base, raw, INITIALIZE);
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}`);
  await res.text();
  const id = res.headers.get('mcp-session-id');
  if (!id) throw new Error('initialize gave no Mcp-Session-Id');
  return id;
}

export interface SseEvent {
  id?: string;
  retry?: string;
  data: string;
}

/**
 * Reads an SSE body as it arrives until it ends or is aborted: each event
 * with its id, retry and data fields, and each comment line (keep-alives).
 */
export async function readSse(response: Response, on: { event(event: SseEvent): void; comment?(): void }): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) {
          on.comment?.();
          continue;
        }
        const event: SseEvent = { data: '' };
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          const [field, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
          if (field === 'id') event.id = value;
          if (field === 'retry') event.retry = value;
          if (field === 'data') event.data += value;
        }
        on.event(event);
      }
    }
  } catch {
    // aborted
  }
}

/** A GET stream read as it arrives: events parsed, comments counted. */
export class SseReader {
  readonly events: SseEvent[] = [];
  comments = 0;
  ended = false;
  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  static async open(base: string, raw: string, session: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const controller = new AbortController();
    const response = await mcpRequest(
      base,
      raw,
      'GET',
      { Accept: 'text/event-stream', 'Mcp-Session-Id': session, ...headers },
      controller.signal,
    );
    const reader = new SseReader(response, controller);
    if (response.status === 200) void reader.read();
    return reader;
  }

  close(): void {
    this.controller.abort();
  }

  private async read(): Promise<void> {
    await readSse(this.response, { event: (event) => this.events.push(event), comment: () => this.comments++ });
    this.ended = true;
  }
}

/** A JSON-RPC answer's body, loosely typed for assertions. */
export const rpcBody = async (res: Response): Promise<{ result: any; error: { code: number; message: string } }> =>
  (await res.json()) as never;
