import { Container } from 'inversify';
import { CallTool } from '../../application/use-cases/gateway/tools/call-tool.use-case';
import { ToolCallRecorder } from '../../adapters/mcp/tool-call-recorder';
import { ToolCallRunner } from '../../adapters/mcp/tool-call-runner';
import { ToolsCallFastPath } from '../../adapters/mcp/tools-call-fast-path';
import { ModernToolsCallFastPath } from '../../adapters/mcp/modern/modern-tools-call-fast-path';
import { ModernToolsListFastPath } from '../../adapters/mcp/modern/modern-tools-list-fast-path';
import { ModernUpstreamCallFastPath } from '../../adapters/mcp/modern/modern-upstream-call-fast-path';
import { InputRequiredRounds } from '../../adapters/mcp/modern/input-required-rounds';
import { SealedRequestState } from '../../adapters/mcp/modern/sealed-request-state';
import { ListTools } from '../../application/use-cases/gateway/list-tools/list-tools.use-case';
import { TOKENS } from './tokens';

/**
 * The /mcp answers given without an SDK server: a lone tools/call of a
 * built-in tool (2025), and on 2026-07-28 a lone tools/list, built-in call
 * or plain call of an upstream tool.
 */
export function bindMcpFastPaths(c: Container): void {
  c.bind(ToolsCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void) => new ToolsCallFastPath(new ToolCallRunner(call, recorder, log)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog],
  );
  c.bind(ModernToolsListFastPath).toResolvedValue((list: ListTools) => new ModernToolsListFastPath(list), [ListTools]);
  c.bind(ModernToolsCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void) => new ModernToolsCallFastPath(new ToolCallRunner(call, recorder, log)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog],
  );
  c.bind(ModernUpstreamCallFastPath).toResolvedValue(
    (call: CallTool, recorder: ToolCallRecorder, log: (error: unknown) => void, states: SealedRequestState) =>
      new ModernUpstreamCallFastPath(new ToolCallRunner(call, recorder, log), new InputRequiredRounds(states)),
    [CallTool, ToolCallRecorder, TOKENS.McpLog, SealedRequestState],
  );
}
