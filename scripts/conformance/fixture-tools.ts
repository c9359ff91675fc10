import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageResultSchema, ElicitResultSchema, ListToolsRequestSchema, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DEFAULTS_FORM, ENUMS_FORM, RESPONSE_FORM } from './fixture-elicitation';
import { FixtureLog } from './fixture-log';
import { PNG_BASE64, WAV_BASE64 } from './fixture-media';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SEP-1613: the suite checks that `$schema`, `$defs` and `additionalProperties` reach the client untouched. */
const JSON_SCHEMA_2020_12_TOOL = 'json_schema_2020_12_tool';
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object' as const,
  $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
};

/**
 * The tools the conformance suite's server scenarios call by name, with the
 * answers they check. Notifications and requests to the client go through the
 * call's own `extra` (not the server object), so they travel on that call's
 * SSE response, as a gateway has to relay them.
 */
export function registerFixtureTools(server: McpServer, log: FixtureLog): void {
  server.registerTool('test_simple_text', { description: 'Returns one text content', inputSchema: {} }, async () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Returns one PNG image content', inputSchema: {} }, async () => ({
    content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Returns one WAV audio content', inputSchema: {} }, async () => ({
    content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded text resource', inputSchema: {} }, async () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Returns text, image and resource content', inputSchema: {} }, async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ],
  }));
  server.registerTool('test_error_handling', { description: 'Always fails with a tool error (isError)', inputSchema: {} }, async () => {
    throw new Error('This tool intentionally returns an error for testing');
  });

  server.registerTool('test_tool_with_logging', { description: 'Sends three log messages while it runs', inputSchema: {} }, async (_args, extra) => {
    for (const [index, message] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
      if (index > 0) await pause(50);
      await log.send(extra.sendNotification, 'info', message);
    }
    return text('Tool with logging executed successfully');
  });

  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100', inputSchema: {} }, async (_args, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await pause(50);
      // Progress goes only to a caller that asked for it with a token.
      if (progressToken !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
      }
    }
    return text(`progress token: ${String(progressToken ?? 'none')}`);
  });

  server.registerTool(
    'test_reconnection',
    { description: 'Closes its SSE response mid-call; the result arrives when the client resumes with Last-Event-ID (SEP-1699)', inputSchema: {} },
    async (_args, extra) => {
      // The SDK offers this only to clients that can resume (2025-11-25 and later); the others get the result on the open stream.
      extra.closeSSEStream?.();
      await pause(100);
      return text('Reconnection test completed successfully: the result arrived after the stream was resumed.');
    },
  );

  server.registerTool(
    'test_sampling',
    { description: 'Asks the client for an LLM completion (sampling/createMessage)', inputSchema: { prompt: z.string().describe('The prompt to send to the LLM') } },
    async ({ prompt }, extra) => {
      const result = await extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 } },
        CreateMessageResultSchema,
      );
      return text(`LLM response: ${result.content.type === 'text' ? result.content.text : `(${result.content.type})`}`);
    },
  );

  const elicit = (name: string, description: string, message: (args: { message?: string }) => string, requestedSchema: typeof RESPONSE_FORM) =>
    server.registerTool(name, { description, inputSchema: { message: z.string().optional().describe('The message to show the user') } }, async (args, extra) => {
      const result = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: message(args), requestedSchema } }, ElicitResultSchema);
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    });
  elicit('test_elicitation', 'Asks the user for input (elicitation/create)', (args) => args.message ?? 'Please provide a response', RESPONSE_FORM);
  elicit('test_elicitation_sep1034_defaults', 'Elicitation with a default for each primitive type (SEP-1034)', () => 'Please review the defaults', DEFAULTS_FORM);
  elicit('test_elicitation_sep1330_enums', 'Elicitation with every enum schema form (SEP-1330)', () => 'Please select options', ENUMS_FORM);

  server.registerTool(
    JSON_SCHEMA_2020_12_TOOL,
    {
      description: 'Has a JSON Schema 2020-12 input schema with $schema, $defs and additionalProperties (SEP-1613)',
      inputSchema: z.object({ name: z.string().optional(), address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional() }).strict(),
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
  listRawSchemaFor(server, JSON_SCHEMA_2020_12_TOOL, JSON_SCHEMA_2020_12_INPUT);
}

/**
 * The SDK lists a tool's input schema converted from zod, which cannot write
 * `$defs` with a `$ref`; this lists the raw schema for one tool and leaves the
 * SDK's listing of the others as it is (its handler is only reachable inside).
 */
function listRawSchemaFor(server: McpServer, name: string, inputSchema: ListToolsResult['tools'][number]['inputSchema']): void {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, (...args: unknown[]) => Promise<ListToolsResult>> })._requestHandlers;
  const sdkList = handlers.get('tools/list');
  if (!sdkList) throw new Error('the SDK did not register tools/list');
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const result = await sdkList(request, extra);
    return { ...result, tools: result.tools.map((tool) => (tool.name === name ? { ...tool, inputSchema } : tool)) };
  });
}
