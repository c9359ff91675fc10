import { Container } from 'inversify';
import { CallTool } from '../../application/use-cases/tools/call-tool.use-case';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { ToolCallRunner } from '../../adapters/mcp/tool-call-runner';
import { ToolsCallFastPath } from '../../adapters/mcp/tools-call-fast-path';
import { TOKENS } from './tokens';

/** The /mcp answers given without an SDK server: a lone tools/call of a built-in tool. */
export function bindMcpFastPaths(c: Container): void {
  c.bind(ToolsCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void) => new ToolsCallFastPath(new ToolCallRunner(call, recorder, log)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog],
  );
}
