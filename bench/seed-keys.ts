import { createHash } from 'node:crypto';
import { Client } from 'pg';

/**
 * A million keys for bench:scale, written with COPY ... FROM STDIN. Every
 * key is derived from its index, so the bench knows the raw key, the id and
 * the owner of any of them without keeping a million in memory.
 */
export const KEYS_PER_USER = 10;
/** Scope sets in rotation (the stored array form; `{}` is full access): real keys share a handful. */
const SCOPES = ['{}', '{projects:read}', '{projects:write,chat:read}', '{mcp_servers:read,agents:write}'];
const ROWS_PER_CHUNK = 5_000;

const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;

export const rawKeyOf = (i: number) => `svc_${hex(`keygate-bench-key:${i}`)}`;
export const keyIdOf = (i: number) => uuidOf(hex(`keygate-bench-id:${i}`));
export const ownerOf = (i: number) => uuidOf(hex(`keygate-bench-user:${Math.floor(i / KEYS_PER_USER)}`));

function row(i: number, createdAt: string): string {
  const raw = rawKeyOf(i);
  const hash = createHash('sha256').update(raw, 'utf8').digest('hex');
  return `${keyIdOf(i)}\tbench ${i}\t${raw.slice(0, 8)}\t${hash}\t${ownerOf(i)}\t${SCOPES[i % SCOPES.length]}\t${createdAt}\n`;
}

/** Inserts keys 0 to count-1 with one COPY, then ANALYZE; resolves with the seconds it took. */
export async function seedKeys(url: string, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const createdAt = new Date().toISOString();
    const copy = new CopyIn('COPY api_keys (id, name, key_prefix, key_hash, user_id, scopes, created_at) FROM STDIN', function* () {
      for (let from = 0; from < count; from += ROWS_PER_CHUNK) {
        let chunk = '';
        for (let i = from; i < Math.min(count, from + ROWS_PER_CHUNK); i += 1) chunk += row(i, createdAt);
        yield Buffer.from(chunk);
      }
    });
    // node-postgres hands a submittable back from query(); CopyIn is thenable and settles when the COPY ends.
    client.query(copy as never);
    await copy;
    await client.query('ANALYZE api_keys');
  } finally {
    await client.end();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  stream: NodeJS.WritableStream & { writableLength: number };
}

/**
 * COPY ... FROM STDIN as a node-postgres "submittable" (pg-copy-streams is
 * not a dependency): the client hands it the connection, PostgreSQL answers
 * CopyInResponse, and the chunks go out as CopyData, waiting for the socket
 * to drain whenever more than a few MB are queued.
 */
class CopyIn {
  private error: Error | null = null;
  private done!: (error: Error | null) => void;
  private readonly finished = new Promise<void>((resolve, reject) => {
    this.done = (error) => (error ? reject(error) : resolve());
  });

  constructor(
    private readonly text: string,
    private readonly chunks: () => Generator<Buffer>,
  ) {}

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    void this.send(connection).catch((error: Error) => connection.sendCopyFail(error.message));
  }

  private async send(connection: CopyConnection): Promise<void> {
    for (const chunk of this.chunks()) {
      connection.sendCopyFromChunk(chunk);
      if (connection.stream.writableLength > 4 * 2 ** 20) await new Promise((resolve) => connection.stream.once('drain', resolve));
    }
    connection.endCopyFrom();
  }

  handleError(error: Error): void {
    this.error = error;
  }

  handleReadyForQuery(): void {
    this.done(this.error);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  /** client.query returns what `submit`'s object offers as a promise: here, the end of the COPY. */
  then<T>(onFulfilled: () => T, onRejected: (error: Error) => T) {
    return this.finished.then(onFulfilled, onRejected);
  }
}
