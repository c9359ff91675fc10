import { randomUUID } from 'node:crypto';
import {
  acceptedContent,
  ClientCapabilities,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  InputRequests,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

const NO_ARGS = z.object({});
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const form = (field: string, type: 'string' | 'boolean') => ({
  type: 'object' as const,
  properties: { [field]: type === 'string' ? { type: 'string' as const } : { type: 'boolean' as const } },
  required: [field],
});

/**
 * The requestState the tools below mint is sealed (HMAC) with a key of this
 * process and checked by the SDK's seam (`ServerOptions.requestState`) before
 * a handler runs, so a tampered one is -32602 (input-required-result-tampered-state).
 */
export const requestStateCodec = createRequestStateCodec<Record<string, unknown>>({ key: crypto.getRandomValues(new Uint8Array(32)) });

/**
 * The 2026-07-28 multi-round-trip tools (SEP-2322) the `input-required-result-*`
 * scenarios call, as the SDK's own conformance server writes them: each
 * answers `input_required` until the retry carries what it asked for. On a
 * 2025 session the SDK's legacy shim turns the same results into real
 * server-to-client requests.
 */
export function registerInputRequiredTools(server: McpServer): void {
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'MRTR: asks for the caller name (elicitation)', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, 'user_name')?.name;
      if (typeof name === 'string') return text(`Hello, ${name}!`);
      return inputRequired({
        inputRequests: { user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: form('name', 'string') }) },
      });
    },
  );

  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'MRTR: asks for an LLM completion (sampling)', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.['capital_question'] as { content?: { text?: unknown } } | undefined;
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            capital_question: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
              maxTokens: 100,
            }),
          },
        });
      }
      return text(`Sampling response: ${typeof answer.content?.text === 'string' ? answer.content.text : JSON.stringify(answer)}`);
    },
  );

  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'MRTR: asks for the client roots (roots/list)', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const roots = (ctx.mcpReq.inputResponses?.['client_roots'] as { roots?: Array<{ uri?: string }> } | undefined)?.roots;
      if (!Array.isArray(roots)) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
      return text(`Client exposed ${roots.length} root(s): ${roots.map((root) => root.uri).join(', ')}`);
    },
  );

  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'MRTR: round-trips sealed requestState with an elicitation', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      if (acceptedContent<{ ok: boolean }>(ctx.mcpReq.inputResponses, 'confirm') === undefined) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: 'Please confirm', requestedSchema: form('ok', 'boolean') }) },
          requestState: await requestStateCodec.mint({ tool: 'request_state', nonce: randomUUID() }),
        });
      }
      if (ctx.mcpReq.requestState() === undefined)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid requestState: missing or failed integrity verification');
      return text('state-ok: requestState verified and confirmation received');
    },
  );

  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'MRTR: elicitation, sampling and roots in one round', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const name = acceptedContent<{ name: string }>(responses, 'user_name')?.name;
      const greeting = (responses?.['greeting'] as { content?: { text?: unknown } } | undefined)?.content?.text;
      const roots = (responses?.['client_roots'] as { roots?: unknown[] } | undefined)?.roots;
      if (typeof name === 'string' && typeof greeting === 'string' && Array.isArray(roots))
        return text(`${greeting} ${name} — ${roots.length} root(s) visible`);
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: form('name', 'string') }),
          greeting: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await requestStateCodec.mint({ tool: 'multiple_inputs', nonce: randomUUID() }),
      });
    },
  );

  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'MRTR: two elicitation rounds, the round in requestState', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<Record<string, unknown>>();
      const round = state?.tool === 'multi_round' && typeof state.round === 'number' ? state.round : 0;
      if (round === 0) {
        return inputRequired({
          inputRequests: {
            step1: inputRequired.elicit({ message: 'Step 1: What is your name?', requestedSchema: form('name', 'string') }),
          },
          requestState: await requestStateCodec.mint({ tool: 'multi_round', round: 1, nonce: randomUUID() }),
        });
      }
      if (round === 1) {
        const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, 'step1')?.name ?? 'unknown';
        return inputRequired({
          inputRequests: {
            step2: inputRequired.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: form('color', 'string') }),
          },
          requestState: await requestStateCodec.mint({ tool: 'multi_round', round: 2, name, nonce: randomUUID() }),
        });
      }
      const color = acceptedContent<{ color: string }>(ctx.mcpReq.inputResponses, 'step2')?.color ?? 'unknown';
      return text(`Multi-round complete: ${String(state?.name ?? 'unknown')} likes ${color}`);
    },
  );

  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'MRTR: a retry whose requestState fails verification is refused', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      if (ctx.mcpReq.requestState() !== undefined && acceptedContent(ctx.mcpReq.inputResponses, 'confirm') !== undefined)
        return text('integrity-ok: requestState verified');
      return inputRequired({
        inputRequests: { confirm: inputRequired.elicit({ message: 'Please confirm', requestedSchema: form('ok', 'boolean') }) },
        requestState: await requestStateCodec.mint({ tool: 'tampered_state', nonce: randomUUID() }),
      });
    },
  );

  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: asks only for the input kinds the client declared', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined) return text('Capability-aware input requests fulfilled');
      // The published types leave the envelope's keys out.
      const declared = (ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
      const inputRequests: InputRequests = {};
      if (declared?.elicitation !== undefined)
        inputRequests.user_name = inputRequired.elicit({ message: 'What is your name?', requestedSchema: form('name', 'string') });
      if (declared?.sampling !== undefined) {
        inputRequests.greeting = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a short greeting' } }],
          maxTokens: 50,
        });
      }
      if (declared?.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
      if (Object.keys(inputRequests).length === 0) return text('No declared client capability supports an in-band input request');
      return inputRequired({ inputRequests });
    },
  );

  // A prompt registered without arguments gets the context as its only argument.
  server.registerPrompt(
    'test_input_required_result_prompt',
    { title: 'MRTR prompt', description: 'MRTR: asks for context (elicitation) before rendering' },
    async (raw) => {
      const ctx = raw;
      const context = acceptedContent<{ context: string }>(ctx.mcpReq.inputResponses, 'user_context')?.context;
      if (typeof context !== 'string') {
        return inputRequired({
          inputRequests: {
            user_context: inputRequired.elicit({
              message: 'What context should the prompt use?',
              requestedSchema: form('context', 'string'),
            }),
          },
        });
      }
      return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Use the following context: ${context}` } }] };
    },
  );
}
