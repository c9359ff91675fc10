import { Request, Response } from 'express';
import { modernResultBody, withServerInfo } from '../era/modern-answer';
import { serverInfoFor } from '../mcp-server.factory';
import { isUnavailable } from '../mcp-error-map';
import { MAX_RESULT_RECORD_BYTES } from '../record-view';
import { rpcResult } from '../rpc-answer';
import { RpcError } from '../rpc-error';
import { ResponseFormat } from '../streamable-http';
import { ToolCallRunner } from '../tool-call-runner';
import { relayedCapabilities } from '../upstream/relaying-client';
import { clientCapabilitiesOf } from './forwarded-meta';
import { InputRequiredRounds } from './input-required-rounds';
import { progressTokenOf } from './modern-relay';
import { bindingOf, ModernCall } from './modern-server.factory';
import { isPlainCallParams, thrownErrorBody } from './modern-tools-call-fast-path';

/** MissingRequiredClientCapability: the one handler error the SDK's HTTP leg answers with a 400 (its httpStatusForErrorCode). */
const MISSING_CAPABILITY = -32021;

/**
 * A lone 2026-07-28 tools/call of an upstream tool whose client takes JSON
 * and asked for neither progress nor log messages, declaring nothing keygate
 * relays (so no call parks): the SDK v2 leg would build a Server, a
 * transport and a web Request and Response around one upstream call and
 * answer JSON. Run here as that leg's handler runs it (the same round, runner
 * and audit event) and answered with its bytes: a complete result stamped by
 * the same writer, an upstream's input_required (sealed by the round) with
 * serverInfo, or a thrown error as the SDK's Protocol writes it (and with its status).
 * SSE, progress, logLevel, retries and parked calls go to the SDK leg.
 */
export class ModernUpstreamCallFastPath {
  constructor(
    private readonly runner: ToolCallRunner,
    private readonly rounds: InputRequiredRounds,
  ) {}

  async tryServe(req: Request, res: Response, call: ModernCall, format: ResponseFormat): Promise<boolean> {
    if (call.method !== 'tools/call' || format !== 'json' || call.logLevel !== undefined) return false;
    const { id, params } = req.body as { id?: unknown; params?: unknown };
    if (!(typeof id === 'string' || typeof id === 'number') || !isPlainCallParams(params)) return false;
    const target = call.calls.get(params.name);
    if (target === undefined || target === null || target.kind !== 'external') return false;
    const meta = (params as { _meta?: unknown })._meta;
    if (progressTokenOf(meta) !== undefined || Object.keys(relayedCapabilities(clientCapabilitiesOf(meta))).length > 0) return false;
    const serverInfo = serverInfoFor(call.view);
    let body: string;
    let status = 200;
    try {
      // The envelope keys sit in _meta beside the trace context: each reader takes only its own.
      const round = this.rounds.begin({
        binding: bindingOf(call, 'tools/call', params.name),
        meta,
        envelope: meta,
        inputResponses: undefined,
        requestState: undefined,
      });
      const result = round.answer(
        await this.runner.run(
          call.principal,
          call.origin,
          call.calls,
          { name: params.name, arguments: params.arguments },
          MAX_RESULT_RECORD_BYTES,
          { forwarded: round.forwarded },
        ),
      );
      body =
        result.resultType === 'input_required'
          ? rpcResult(id, withServerInfo(result, serverInfo))
          : modernResultBody(id, 'tools/call', result, { serverInfo });
    } catch (error) {
      // An outage is the edge's to answer, 503 with the id, as the SDK leg's would be (mcp.controller.ts).
      if (isUnavailable(error)) throw error;
      body = thrownErrorBody(id, error as RpcError);
      // In-band errors stay on 200 but for the upstream's -32021, which the SDK answers 400 (as the spec says).
      if ((error as RpcError).code === MISSING_CAPABILITY) status = 400;
    }
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  }
}
