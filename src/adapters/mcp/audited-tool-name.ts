import { ToolTarget } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { NAMESPACED_VIEW } from '../../application/use-cases/gateway/external/upstream-view';

/**
 * The name a tool-call event records: an upstream tool as /mcp names it
 * (`<server>__<tool>`) whichever endpoint called it, so that the trail says
 * which server ran it even when /mcp/servers/<name> called it by its plain name.
 */
export function auditedToolName(target: ToolTarget, called: string): string {
  return target.kind === 'external' ? NAMESPACED_VIEW.toolName(target.tool.server.data.name as string, target.tool.tool) : called;
}
