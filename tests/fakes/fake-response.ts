import { EventEmitter } from 'node:events';

/** The part of an Express response an SSE stream writes to, recorded (header names as set). */
export class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string> = {};
  chunks: string[] = [];
  writableEnded = false;
  writeHead(status: number, headers: Record<string, string>) {
    this.statusCode = status;
    Object.assign(this.headers, headers);
    return this;
  }
  flushHeaders() {}
  setHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  type() {
    return this;
  }
  send(body: string) {
    this.chunks.push(body);
    this.writableEnded = true;
    return this;
  }
  write(chunk: string) {
    this.chunks.push(chunk);
    return true;
  }
  end() {
    this.writableEnded = true;
  }
}
