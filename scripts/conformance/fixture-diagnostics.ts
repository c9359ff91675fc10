import { inputRequired, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { FixtureLog } from './fixture-log';

const NO_ARGS = z.object({});
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** Where the diagnostic triggers announce a change: the modern handler's bus, or a 2025 session's own stream. */
export interface ListChanges {
  toolsChanged(): void;
  promptsChanged(): void;
}

/**
 * The tools the 2026-07-28 `server-stateless` scenario calls by name
 * (SEP-2575 diagnostics), as the SDK's conformance server has them. The two
 * triggers publish a list change: on a 2026-07-28 request onto the modern
 * handler's bus, which every open `subscriptions/listen` stream of the
 * fixture receives; on a 2025 session as a notification on its GET stream.
 */
export function registerDiagnosticTools(server: McpServer, log: FixtureLog, changes: ListChanges): void {
  // Needs the client's `sampling`: the scenario declares none and expects -32021 on HTTP 400 (the SDK's seam answers it).
  server.registerTool(
    'test_missing_capability',
    { description: 'SEP-2575: requires the sampling client capability', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      if (ctx.mcpReq.inputResponses?.['llm_answer'] !== undefined) return text('sampling round-trip complete');
      return inputRequired({
        inputRequests: {
          llm_answer: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Reply with the single word: pong' } }],
            maxTokens: 16,
          }),
        },
      });
    },
  );
  // A plain result: the check asserts that the response stream carries no independent request.
  server.registerTool(
    'test_streaming_elicitation',
    { description: 'SEP-2575: a response stream with no independent requests', inputSchema: NO_ARGS },
    async () => text('stream observed: result frames only, no top-level requests'),
  );
  server.registerTool(
    'test_logging_tool',
    { description: 'SEP-2575: logs only when the request named a logLevel', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      await log.send(ctx, 'info', 'test_logging_tool ran (delivered only when the request set _meta.logLevel)');
      return text('logged through the request-scoped, logLevel-gated channel');
    },
  );
  server.registerTool(
    'test_trigger_tool_change',
    { description: 'Listen diagnostic: publishes tools/list_changed', inputSchema: NO_ARGS },
    async () => {
      changes.toolsChanged();
      return text('tools_list_changed published');
    },
  );
  server.registerTool(
    'test_trigger_prompt_change',
    { description: 'Listen diagnostic: publishes prompts/list_changed', inputSchema: NO_ARGS },
    async () => {
      changes.promptsChanged();
      return text('prompts_list_changed published');
    },
  );
}
