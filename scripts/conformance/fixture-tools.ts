import { fromJsonSchema, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DEFAULTS_FORM, ENUMS_FORM, RESPONSE_FORM } from './fixture-elicitation';
import { FixtureLog } from './fixture-log';
import { PNG_BASE64, WAV_BASE64 } from './fixture-media';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const NO_ARGS = z.object({});

/** SEP-1613 / SEP-2106: the suite checks that these 2020-12 keywords reach the client untouched. */
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

const X_MCP_HEADER_INPUT = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
    level: { type: 'integer', description: 'not mirrored' },
  },
};

/**
 * The tools the conformance suite's server scenarios call by name, with the
 * answers they check. Notifications and requests to the client go through the
 * call's own context (not the server object), so they travel on that call's
 * SSE response, as a gateway has to relay them. Sampling and elicitation are
 * 2025 server requests: the SDK refuses them on a 2026-07-28 request, whose
 * scenarios call the input-required tools instead (fixture-input-required.ts).
 */
export function registerFixtureTools(server: McpServer, log: FixtureLog): void {
  server.registerTool('test_simple_text', { description: 'Returns one text content', inputSchema: NO_ARGS }, async () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Returns one PNG image content', inputSchema: NO_ARGS }, async () => ({
    content: [{ type: 'image' as const, data: PNG_BASE64, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Returns one WAV audio content', inputSchema: NO_ARGS }, async () => ({
    content: [{ type: 'audio' as const, data: WAV_BASE64, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded text resource', inputSchema: NO_ARGS }, async () => ({
    content: [
      {
        type: 'resource' as const,
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ],
  }));
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, image and resource content', inputSchema: NO_ARGS },
    async () => ({
      content: [
        { type: 'text' as const, text: 'Multiple content types test:' },
        { type: 'image' as const, data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource' as const,
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
        },
      ],
    }),
  );
  server.registerTool(
    'test_error_handling',
    { description: 'Always fails with a tool error (isError)', inputSchema: NO_ARGS },
    async () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  );

  server.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three log messages while it runs', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      for (const [index, message] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
        if (index > 0) await pause(50);
        await log.send(ctx, 'info', message);
      }
      return text('Tool with logging executed successfully');
    },
  );

  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await pause(50);
        // Progress goes only to a caller that asked for it with a token.
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
          });
        }
      }
      return text(`progress token: ${String(progressToken ?? 'none')}`);
    },
  );

  server.registerTool(
    'test_reconnection',
    {
      description: 'Closes its SSE response mid-call; the result arrives when the client resumes with Last-Event-ID (SEP-1699)',
      inputSchema: NO_ARGS,
    },
    async (_args, ctx) => {
      // The SDK offers this only to clients that can resume (2025-11-25 and later); the others get the result on the open stream.
      ctx.http?.closeSSE?.();
      await pause(100);
      return text('Reconnection test completed successfully: the result arrived after the stream was resumed.');
    },
  );

  server.registerTool(
    'test_sampling',
    {
      description: 'Asks the client for an LLM completion (sampling/createMessage)',
      inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
    },
    async ({ prompt }, ctx) => {
      const result = await ctx.mcpReq.send({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
      });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      return text(`LLM response: ${content?.type === 'text' ? content.text : `(${String(content?.type)})`}`);
    },
  );

  const elicit = (
    name: string,
    description: string,
    message: (args: { message?: string }) => string,
    requestedSchema: typeof RESPONSE_FORM,
  ) =>
    server.registerTool(
      name,
      { description, inputSchema: z.object({ message: z.string().optional().describe('The message to show the user') }) },
      async (args, ctx: ServerContext) => {
        const result = await ctx.mcpReq.send({
          method: 'elicitation/create',
          params: { mode: 'form', message: message(args), requestedSchema },
        });
        return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      },
    );
  elicit(
    'test_elicitation',
    'Asks the user for input (elicitation/create)',
    (args) => args.message ?? 'Please provide a response',
    RESPONSE_FORM,
  );
  elicit(
    'test_elicitation_sep1034_defaults',
    'Elicitation with a default for each primitive type (SEP-1034)',
    () => 'Please review the defaults',
    DEFAULTS_FORM,
  );
  elicit('test_elicitation_sep1330_enums', 'Elicitation with every enum schema form (SEP-1330)', () => 'Please select options', ENUMS_FORM);

  // SEP-2243 (scenario http-custom-header-server-validation, run but not scored yet): an argument mirrored into Mcp-Param-Region.
  server.registerTool(
    'test_x_mcp_header',
    {
      description: 'Has an x-mcp-header argument (SEP-2243)',
      inputSchema: fromJsonSchema<{ region?: string; level?: number }>(X_MCP_HEADER_INPUT),
    },
    async (args) => text(`region=${args.region ?? '<none>'}`),
  );

  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Has a JSON Schema 2020-12 input schema with $schema, $defs and additionalProperties (SEP-1613, SEP-2106)',
      inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12_INPUT),
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
}
