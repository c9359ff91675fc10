import { Request, Response } from 'express';
import { JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { listToolsFor } from './list-tools-request';
import { ResponseFormat } from './streamable-http';
import { ToolListBytes } from './tool-list-bytes';

/**
 * tools/list is what every client sends on every connection, and building an
 * SDK server and transport for it costs more than answering it. A lone,
 * well-formed tools/list wanting JSON is answered here with the same use-case
 * and presenter the SDK handler uses; anything else, and any failure
 * (-32602 for agent_scopes, a cursor, an unknown protocol version), is left to
 * the SDK so that errors keep one source.
 */
export class ToolsListFastPath {
  private readonly bytes = new ToolListBytes();

  constructor(private readonly listTools: ListTools) {}

  async tryServe(
    req: Request,
    res: Response,
    principal: KeyPrincipal,
    messages: JSONRPCMessage[],
    format: ResponseFormat,
  ): Promise<boolean> {
    if (format !== 'json' || Array.isArray(req.body) || messages.length !== 1) return false;
    const message = messages[0] as { method?: unknown; id?: unknown; params?: unknown };
    if (message.method !== 'tools/list' || !('id' in message)) return false;
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return false;
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) return false;
    let tools;
    try {
      tools = await listToolsFor(this.listTools, principal, message.params ?? {});
    } catch {
      return false;
    }
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"tools":`;
    const tail = this.bytes.of(tools);
    // Straight to Node rather than res.send, which copies a body this size into a new Buffer each time.
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(head) + tail.length });
    res.write(head);
    res.end(tail);
    return true;
  }
}
