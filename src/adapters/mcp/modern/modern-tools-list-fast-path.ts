import { Request, Response } from 'express';
import { ListTools } from '../../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { ToolDescriptor } from '../../../domain/tool';
import { modernResultBody } from '../era/modern-answer';
import { RpcId } from '../json-rpc';
import { listToolsFor } from '../list-tools-request';
import { isUnavailable } from '../mcp-error-map';
import { serverInfoFor } from '../mcp-server.factory';
import { ResponseFormat } from '../streamable-http';
import { ToolListBytes } from '../tool-list-bytes';
import { ModernCall } from './modern-server.factory';

/** Placeholders cut out of a stamped answer, leaving the bytes around the tools and the id. */
const TOOLS_MARK = 'keygate:tools-placeholder';
const ID_MARK = 'keygate:id-placeholder';

/** The bytes of a 2026 tools/list answer around its tools array and its id, as the SDK leg stamps them. */
interface Template {
  head: string;
  middle: string;
  tail: string;
}

/**
 * A 2026-07-28 tools/list costs more through the SDK v2 (a Server, a
 * transport and a web Request and Response per request) than answering it,
 * and every client sends it. A lone tools/list whose client takes JSON,
 * already through the era gate's checks (headers against body, `_meta`, the
 * version) and keygate's gates, is answered here over the same use-case with
 * the bytes the SDK leg answers (resultType, the caching hints and serverInfo
 * stamped by the same writer); any failure, such as a cursor (-32602), is left
 * to the SDK so that errors keep one source, but an outage, which the edge
 * answers as the SDK leg's would be (mcp.controller.ts).
 */
export class ModernToolsListFastPath {
  private readonly bytes = new ToolListBytes('');
  /** /mcp's template; an upstream's endpoint names the upstream in serverInfo, so its template is made per request. */
  private readonly keygate = templateOf(serverInfoFor());

  constructor(private readonly listTools: ListTools) {}

  async tryServe(req: Request, res: Response, call: ModernCall, format: ResponseFormat): Promise<boolean> {
    if (call.method !== 'tools/list' || format !== 'json') return false;
    const message = req.body as { id?: unknown; params?: unknown };
    const { id, params } = message;
    if (!(typeof id === 'string' || typeof id === 'number')) return false;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
    let tools: readonly ToolDescriptor[];
    try {
      tools = await listToolsFor(this.listTools, call.principal, params, call.view);
    } catch (error) {
      // An outage is the edge's to answer (503 with the id); the SDK leg would only meet it again.
      if (isUnavailable(error)) throw error;
      return false;
    }
    const template = call.view?.server ? templateOf(serverInfoFor(call.view)) : this.keygate;
    write(res, template, this.bytes.of(tools), id);
    return true;
  }
}

function templateOf(serverInfo: { name: string; version: string }): Template {
  const stamped = modernResultBody(ID_MARK, 'tools/list', { tools: TOOLS_MARK }, { serverInfo });
  const [head, rest, ...more] = stamped.split(JSON.stringify(TOOLS_MARK));
  const [middle, tail, ...others] = (rest ?? '').split(JSON.stringify(ID_MARK));
  // The SDK writes the result before the id; were that to change, this path must change with it.
  if (rest === undefined || tail === undefined || more.length > 0 || others.length > 0)
    throw new Error(`unexpected 2026 tools/list layout: ${stamped}`);
  return { head, middle, tail };
}

/** As the SDK leg answers: status 200, `application/json`, the message alone; with a Content-Length where it streams chunked. */
function write(res: Response, { head, middle, tail }: Template, tools: Buffer, id: RpcId): void {
  const end = `${middle}${JSON.stringify(id)}${tail}`;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(head) + tools.length + Buffer.byteLength(end),
  });
  res.cork();
  res.write(head);
  res.write(tools);
  res.end(end);
}
