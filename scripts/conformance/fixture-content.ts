import { completable, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { FixtureLog } from './fixture-log';
import { PNG_BASE64 } from './fixture-media';

const WATCHED = 'test://watched-resource';

/** Suggestions for a value typed so far: the candidates it starts. */
const startingWith = (candidates: string[]) => (typed: string) => candidates.filter((candidate) => candidate.startsWith(typed));

/**
 * Resources (static text and binary, a template, a subscribable one) and
 * their completion. Subscribing to the watched resource changes it once, so
 * a `notifications/resources/updated` follows every subscription (on the
 * session's GET stream, or stored for it until it is opened).
 */
export function registerFixtureResources(server: McpServer, log: FixtureLog): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { title: 'Static text', description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { title: 'Static binary', description: 'A PNG image', mimeType: 'image/png' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_BASE64 }],
    }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined, complete: { id: startingWith(['123', '456', '789']) } }),
    { title: 'Template', description: 'JSON data for the id in its URI', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );

  let revision = 0;
  const subscribed = new Set<string>();
  server.registerResource(
    'watched-resource',
    WATCHED,
    { title: 'Watched', description: 'Changes once on every subscription', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Watched resource content, revision ${revision}` }],
    }),
  );
  server.server.setRequestHandler('resources/subscribe', async ({ params: { uri } }, ctx) => {
    subscribed.add(uri);
    await log.send(ctx, 'info', `Subscribed to ${uri}`);
    if (uri === WATCHED) {
      // After the answer, so the client knows it is subscribed when the update arrives.
      setImmediate(() => {
        revision++;
        if (subscribed.has(uri)) server.server.sendResourceUpdated({ uri }).catch(() => undefined);
      });
    }
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async ({ params: { uri } }, ctx) => {
    subscribed.delete(uri);
    await log.send(ctx, 'info', `Unsubscribed from ${uri}`);
    return {};
  });
}

/** Prompts without arguments, with arguments (completable), with an embedded resource and with an image. */
export function registerFixturePrompts(server: McpServer): void {
  server.registerPrompt('test_simple_prompt', { title: 'Simple prompt', description: 'A prompt without arguments' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt with arguments',
      description: 'A prompt with two required arguments; arg1 completes',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), startingWith(['test', 'testValue1', 'other'])),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt with an embedded resource',
      description: 'Embeds the resource named by resourceUri',
      argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
    },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user' as const,
          content: {
            type: 'resource' as const,
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { title: 'Prompt with an image', description: 'A prompt with PNG image content' },
    async () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );
}
