import { boundRpcError } from './json-rpc';

/**
 * A JSON-RPC error as the SDK server puts it on the wire: it sends an error's
 * code, message and data. An McpError would do, but its message gains an
 * "MCP error <code>: " prefix, which clients then print twice.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;

  /** Cut to the error bounds here, so that no handler can send a huge error through the SDK. */
  constructor(code: number, message: string, data?: unknown) {
    const bounded = boundRpcError(code, message, data);
    super(bounded.message);
    this.code = code;
    if (bounded.data !== undefined) this.data = bounded.data;
  }
}
