import { ExternalTool, ExternalToolOutcome, ExternalTools } from '../../src/application/ports/external-tools.port';
import { ResourceRecord } from '../../src/domain/resource/resource-record';
import { ScopeSet } from '../../src/domain/scope';
import { ToolDescriptor } from '../../src/domain/tool';

/**
 * ExternalTools in memory: tools by namespaced name, each with the scopes a
 * call needs. It counts what use-cases ask of it, and every run answers with
 * the tool's name.
 */
export class FakeExternalTools implements ExternalTools {
  readonly resolved: string[] = [];
  readonly runs: { tool: ExternalTool; args: Record<string, unknown> | undefined }[] = [];
  private readonly tools = new Map<string, ExternalTool>();

  /** Registers `<server>__<tool>` for `owner`. */
  add(owner: string, name: string, callScopes: string[]): ExternalTool {
    const [server, tool] = name.split('__');
    const now = new Date();
    const record: ResourceRecord = {
      id: `${server}-id`,
      ownerId: owner,
      resource: 'mcp_servers',
      parentId: null,
      subresource: null,
      data: { name: server, url: `https://${server}.example/mcp` },
      createdAt: now,
      updatedAt: now,
    };
    const found = { server: record, callerId: owner, tool, callScopes };
    this.tools.set(`${owner}/${name}`, found);
    return found;
  }

  async catalog(userId: string, _scopes: ScopeSet): Promise<readonly ToolDescriptor[]> {
    return [...this.tools.entries()]
      .filter(([key]) => key.startsWith(`${userId}/`))
      .map(([key, { callScopes }]) => ({
        name: key.slice(userId.length + 1),
        description: 'fake',
        inputSchema: { type: 'object' },
        requiredScopes: callScopes,
      }));
  }

  async resolve(userId: string, name: string): Promise<ExternalTool | null> {
    this.resolved.push(name);
    return this.tools.get(`${userId}/${name}`) ?? null;
  }

  async run(tool: ExternalTool, args: Record<string, unknown> | undefined): Promise<ExternalToolOutcome> {
    this.runs.push({ tool, args });
    return { kind: 'relayed', result: { content: [{ type: 'text', text: `${tool.tool} ran` }] } };
  }
}
