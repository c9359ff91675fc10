import { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { ToolOutcome } from '../../application/use-cases/gateway/tool-outcome';
import { ToolDescriptor } from '../../domain/tool';
import { clipToBytes, MAX_ERROR_BODY_BYTES } from '../edge/error-limits';
import { MAX_RESULT_RECORD_BYTES, toolValueView } from './record-view';

/** A tool as MCP lists it; the scopes it needs stay on our side. */
export function toMcpTool(tool: ToolDescriptor): Tool {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
  };
}

/**
 * Results carry the value twice: as structuredContent and, for older clients,
 * as JSON text; its records take at most `recordBytes` bytes of JSON, less
 * than a lone result's MAX_RESULT_RECORD_BYTES when a batch shares the
 * answer. A failure's text is an error body like any other, so it is held to
 * half the error budget, and to what a value of `recordBytes` may take in an
 * answer (three times: twice, one copy escaped).
 */
export function toCallToolResult(outcome: ToolOutcome, recordBytes = MAX_RESULT_RECORD_BYTES): CallToolResult {
  if (outcome.kind === 'relayed') return outcome.result as CallToolResult;
  if (outcome.kind === 'error') {
    return {
      content: [{ type: 'text', text: clipToBytes(outcome.message, Math.min(MAX_ERROR_BODY_BYTES / 2, 3 * recordBytes)) }],
      isError: true,
    };
  }
  const value = toolValueView(outcome.value, recordBytes);
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
